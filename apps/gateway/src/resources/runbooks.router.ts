/**
 * REST `/core/runbooks` (reference API: List Runbooks, Get/Create/Update/Delete a Runbook, and the
 * run lifecycle `PATCH /core/runbooks/{id}/start|pause|resume|cancel`), plus the stage-change log
 * `GET /core/runbooks/{id}/events`.
 */
import {
  customFieldValuesInput,
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  type RunbookDetailDto,
  type RunEventDto,
  refSchema,
  resourceSchema,
  runbookActionMeta,
  runbookCreateAttributes,
  runbookDetailAttributes,
  runbookStageSchema,
  runbookStartMeta,
  runbookUpdateAttributes,
  runEventAttributes,
  singleDocument,
  sortSchema,
  strictBody,
  toOne,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, one, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

/** The `runbook` resource. */
export const runbookResource = resourceSchema(
  'runbook',
  runbookDetailAttributes,
  z.object({ workspace: toOne('workspace') }),
).meta({ id: 'Runbook' });

const toResource = ({ id, workspace_id, ...attributes }: RunbookDetailDto) => ({
  id,
  type: 'runbook' as const,
  attributes,
  relationships: { workspace: one('workspace', workspace_id) },
});

/** A `runbook_event` resource: one recorded stage change. */
export const runbookEventResource = resourceSchema(
  'runbook_event',
  runEventAttributes,
  z.object({ runbook: toOne('runbook'), task: toOne('task') }),
).meta({ id: 'RunbookEvent' });

const toEventResource = ({ id, runbook_id, task_id, ...attributes }: RunEventDto) => ({
  id,
  type: 'runbook_event' as const,
  attributes,
  relationships: { runbook: one('runbook', runbook_id), task: one('task', task_id) },
});

const booleanQuery = z.enum(['true', 'false']).optional();

const runbookCreateBody = runbookCreateAttributes
  .extend({ custom_field_values: customFieldValuesInput.optional() })
  .meta({ id: 'RunbookCreateDetailAttributes' });
const runbookUpdateBody = runbookUpdateAttributes
  .extend({ custom_field_values: customFieldValuesInput.optional() })
  .meta({ id: 'RunbookUpdateDetailAttributes' });

/** A run lifecycle action on `/core/runbooks/{id}/<action>`. */
function lifecycle(action: 'pause' | 'resume' | 'cancel', summary: string) {
  return forwardingProcedure
    .meta({
      role: 'workspace_manager',
      openapi: { method: 'PATCH', path: `/core/runbooks/{id}/${action}`, tags: ['runbooks'], summary },
    })
    .input(z.object({ id: idSchema, meta: strictBody(runbookActionMeta).optional() }))
    .output(singleDocument(runbookResource));
}

/** REST runbook procedures, run lifecycle and events. */
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
   * Create a Runbook: `{"data": {"type": "runbook", "attributes": {name, description?, is_template?,
   * custom_field_values?}, "relationships": {"workspace": {"data": {"id", "type": "workspace"}}}}}`.
   * Role: workspace_manager (global or of that workspace). Errors: 422 (unknown workspace, invalid
   * fields, custom field values: `unknown_custom_field`, `unknown_system_parameters`, …).
   */
  create: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      status: 201,
      openapi: { method: 'POST', path: '/core/runbooks', tags: ['runbooks'], summary: 'Create a Runbook' },
    })
    .input(
      z.object({
        data: strictBody(writeDocument('runbook', runbookCreateBody, z.object({ workspace: refSchema('workspace') }))),
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

  /**
   * Update a Runbook's name, description or custom field values (an entry with `value: null` removes
   * that field's value). Role: workspace_manager. Errors: 404, 422.
   */
  update: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      openapi: { method: 'PATCH', path: '/core/runbooks/{id}', tags: ['runbooks'], summary: 'Update a Runbook' },
    })
    .input(z.object({ id: idSchema, data: strictBody(writeDocument('runbook', runbookUpdateBody)) }))
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

  /**
   * Start a Runbook: `planning → active`. Body optional: `{"meta": {"run_type": "live" | "rehearsal"}}`
   * (default live). Every task goes back to `not_startable`; root tasks become `startable` and
   * auto-start ones start. Role: workspace_manager. Errors: 404; 422 `invalid_transition`.
   */
  start: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      openapi: { method: 'PATCH', path: '/core/runbooks/{id}/start', tags: ['runbooks'], summary: 'Start a Runbook' },
    })
    .input(z.object({ id: idSchema, meta: strictBody(runbookStartMeta).optional() }))
    .output(singleDocument(runbookResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.catalog.runbooks.start.mutate(
          { id: input.id, run_type: input.meta?.run_type ?? 'live' },
          ctx.forward,
        ),
      ),
    })),

  /** Pause a Runbook: `active → paused`; nothing starts until resume. Optional `meta.message`. Errors: 404; 422 `invalid_transition`. */
  pause: lifecycle('pause', 'Pause a Runbook').mutation(async ({ ctx, input }) => ({
    data: toResource(
      await ctx.deps.catalog.runbooks.pause.mutate({ id: input.id, ...(input.meta ?? {}) }, ctx.forward),
    ),
  })),

  /** Resume a Runbook: `paused → active`; waiting auto starts and executions proceed. Optional `meta.message`. Errors: 404; 422. */
  resume: lifecycle('resume', 'Resume a Runbook').mutation(async ({ ctx, input }) => ({
    data: toResource(
      await ctx.deps.catalog.runbooks.resume.mutate({ id: input.id, ...(input.meta ?? {}) }, ctx.forward),
    ),
  })),

  /** Cancel a Runbook: `active | paused → canceled`; waiting executions are canceled. Optional `meta.message`. Errors: 404; 422. */
  cancel: lifecycle('cancel', 'Cancel a Runbook').mutation(async ({ ctx, input }) => ({
    data: toResource(
      await ctx.deps.catalog.runbooks.cancel.mutate({ id: input.id, ...(input.meta ?? {}) }, ctx.forward),
    ),
  })),

  /**
   * List Runbook Events: every stage change of the runbook and its tasks (kind, from/to stage, who —
   * `actor` user, service or `system` for automatic steps — and when), oldest first. Filter `task_id`;
   * pagination as List Runbooks. Role: developer. Errors: 404.
   */
  events: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/runbooks/{id}/events',
        tags: ['runbooks'],
        summary: 'List Runbook Events',
      },
    })
    .input(z.object({ id: idSchema, task_id: idSchema.optional(), ...pageQueryShape }))
    .output(listDocumentSchema(runbookEventResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.catalog.runbooks.events.query(
        { id: input.id, ...(input.task_id ? { task_id: input.task_id } : {}), page: pageRequestOf(input) },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        `/core/runbooks/${input.id}/events`,
        { task_id: input.task_id },
        input,
        page,
        toEventResource,
      );
    }),
});
