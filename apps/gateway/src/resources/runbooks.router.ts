/** REST `/core/runbooks` (reference API: List Runbooks, Get/Create/Update/Delete a Runbook). */
import {
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  type RunbookDto,
  refSchema,
  resourceSchema,
  runbookAttributes,
  runbookCreateAttributes,
  runbookStageSchema,
  runbookUpdateAttributes,
  singleDocument,
  sortSchema,
  strictBody,
  toOne,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, one, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

export const runbookResource = resourceSchema(
  'runbook',
  runbookAttributes,
  z.object({ workspace: toOne('workspace') }),
).meta({ id: 'Runbook' });

const toResource = ({ id, workspace_id, ...attributes }: RunbookDto) => ({
  id,
  type: 'runbook' as const,
  attributes,
  relationships: { workspace: one('workspace', workspace_id) },
});

const booleanQuery = z.enum(['true', 'false']).optional();

export const runbooksRouter = router({
  /**
   * List Runbooks. Filters: `workspace_id`, `stage`, `is_template` (`true|false`); `sort` by
   * `name|created_at|id` (prefix `-` for descending; default `id`); pagination `page[number]`,
   * `page[size]` (default 25, max 100), `page[after]` (cursor from `links.next`). Role: developer.
   */
  list: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/runbooks', tags: ['runbooks'], summary: 'List Runbooks' } })
    .input(
      z.object({
        workspace_id: idSchema.optional(),
        stage: runbookStageSchema.optional(),
        is_template: booleanQuery,
        sort: sortSchema(['id', 'name', 'created_at']),
        ...pageQueryShape,
      }),
    )
    .output(listDocumentSchema(runbookResource))
    .query(async ({ ctx, input }) => {
      const filters = {
        workspace_id: input.workspace_id,
        stage: input.stage,
        is_template: input.is_template,
        sort: input.sort,
      };
      const page = await ctx.deps.catalog.runbooks.list.query(
        {
          ...(input.workspace_id ? { workspace_id: input.workspace_id } : {}),
          ...(input.stage ? { stage: input.stage } : {}),
          ...(input.is_template ? { is_template: input.is_template === 'true' } : {}),
          ...(input.sort ? { sort: input.sort as 'id' } : {}),
          page: pageRequestOf(input),
        },
        ctx.forward,
      );
      return listDocument(ctx.deps.publicUrl, '/core/runbooks', filters, input, page, toResource);
    }),

  /** Get a Runbook. Errors: 404. Role: developer. */
  get: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/runbooks/{id}', tags: ['runbooks'], summary: 'Get a Runbook' } })
    .input(z.object({ id: idSchema }))
    .output(singleDocument(runbookResource))
    .query(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.runbooks.get.query(input, ctx.forward)),
    })),

  /**
   * Create a Runbook: `{"data": {"type": "runbook", "attributes": {name, description?, is_template?},
   * "relationships": {"workspace": {"data": {"id", "type": "workspace"}}}}}`.
   * Role: workspace_manager (global or of that workspace). Errors: 422 (unknown workspace, invalid fields).
   */
  create: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      status: 201,
      openapi: { method: 'POST', path: '/core/runbooks', tags: ['runbooks'], summary: 'Create a Runbook' },
    })
    .input(
      z.object({
        data: strictBody(
          writeDocument('runbook', runbookCreateAttributes, z.object({ workspace: refSchema('workspace') })),
        ),
      }),
    )
    .output(singleDocument(runbookResource))
    .mutation(async ({ ctx, input }) => {
      const { attributes, relationships } = input.data;
      const dto = await ctx.deps.catalog.runbooks.create.mutate(
        { ...attributes, workspace_id: relationships.workspace.data.id },
        ctx.forward,
      );
      return { data: toResource(dto) };
    }),

  /** Update a Runbook's name or description. Role: workspace_manager. Errors: 404, 422. */
  update: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      openapi: { method: 'PATCH', path: '/core/runbooks/{id}', tags: ['runbooks'], summary: 'Update a Runbook' },
    })
    .input(z.object({ id: idSchema, data: strictBody(writeDocument('runbook', runbookUpdateAttributes)) }))
    .output(singleDocument(runbookResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.catalog.runbooks.update.mutate({ id: input.id, ...input.data.attributes }, ctx.forward),
      ),
    })),

  /** Delete a Runbook and its tasks; 204, then GET answers 404. Role: workspace_manager. */
  delete: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      status: 204,
      openapi: { method: 'DELETE', path: '/core/runbooks/{id}', tags: ['runbooks'], summary: 'Delete a Runbook' },
    })
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.catalog.runbooks.delete.mutate(input, ctx.forward);
    }),
});
