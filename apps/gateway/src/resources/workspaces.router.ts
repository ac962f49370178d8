/** REST `/core/workspaces` (reference API: List/Get/Create Workspace). */
import {
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  resourceSchema,
  singleDocument,
  strictBody,
  type WorkspaceDto,
  workspaceAttributes,
  workspaceCreateAttributes,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

export const workspaceResource = resourceSchema('workspace', workspaceAttributes).meta({ id: 'Workspace' });
const toResource = ({ id, ...attributes }: WorkspaceDto) => ({ id, type: 'workspace' as const, attributes });

export const workspacesRouter = router({
  /** List Workspaces. Query: `page[number]`, `page[size]` (≤ 100), `page[after]`. Role: developer. */
  list: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/workspaces', tags: ['workspaces'], summary: 'List Workspaces' } })
    .input(z.object({ ...pageQueryShape }))
    .output(listDocumentSchema(workspaceResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.catalog.workspaces.list.query({ page: pageRequestOf(input) }, ctx.forward);
      return listDocument(ctx.deps.publicUrl, '/core/workspaces', {}, input, page, toResource);
    }),

  /** Get a Workspace. Errors: 404. Role: developer. */
  get: forwardingProcedure
    .meta({
      openapi: { method: 'GET', path: '/core/workspaces/{id}', tags: ['workspaces'], summary: 'Get a Workspace' },
    })
    .input(z.object({ id: idSchema }))
    .output(singleDocument(workspaceResource))
    .query(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.workspaces.get.query(input, ctx.forward)),
    })),

  /** Create a Workspace: `{"data": {"type": "workspace", "attributes": {name, key?, description?}}}`. Role: workspace_manager. Errors: 409 `key_taken`, 422. */
  create: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      status: 201,
      openapi: { method: 'POST', path: '/core/workspaces', tags: ['workspaces'], summary: 'Create a Workspace' },
    })
    .input(z.object({ data: strictBody(writeDocument('workspace', workspaceCreateAttributes)) }))
    .output(singleDocument(workspaceResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.workspaces.create.mutate(input.data.attributes, ctx.forward)),
    })),
});
