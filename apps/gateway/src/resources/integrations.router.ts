/**
 * REST `/core/integrations`: HTTP requests run by integration tasks. URL, header values and the JSON
 * body are templates that may reference `{{system.<name>}}`; they are validated when saved (unknown
 * parameters → 422 `unknown_system_parameters` naming them) and resolved only when a task runs.
 * Writes need `integrations_admin`.
 */
import {
  type IntegrationDto,
  idSchema,
  integrationAttributes,
  integrationCreateAttributes,
  integrationUpdateAttributes,
  listDocument as listDocumentSchema,
  pageQueryShape,
  resourceSchema,
  singleDocument,
  strictBody,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

/** The `integration` resource. */
export const integrationResource = resourceSchema('integration', integrationAttributes).meta({ id: 'Integration' });
const toResource = ({ id, ...attributes }: IntegrationDto) => ({ id, type: 'integration' as const, attributes });

/** REST `/core/integrations` procedures. */
export const integrationsRouter = router({
  /** List Integrations by id. Pagination as List Runbooks. Role: developer. */
  list: forwardingProcedure
    .meta({
      openapi: { method: 'GET', path: '/core/integrations', tags: ['integrations'], summary: 'List Integrations' },
    })
    .input(z.object({ ...pageQueryShape }))
    .output(listDocumentSchema(integrationResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.catalog.integrations.list.query({ page: pageRequestOf(input) }, ctx.forward);
      return listDocument(ctx.deps.publicUrl, '/core/integrations', {}, input, page, toResource);
    }),

  /** Get an Integration. Errors: 404. Role: developer. */
  get: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/integrations/{id}',
        tags: ['integrations'],
        summary: 'Get an Integration',
      },
    })
    .input(z.object({ id: idSchema }))
    .output(singleDocument(integrationResource))
    .query(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.integrations.get.query(input, ctx.forward)),
    })),

  /**
   * Create an Integration: attributes `name`, `method` (default POST), `url`, `headers` ([{name,
   * value}]), `body` (JSON template or null), `timeout_ms` (100–30000, default 10000),
   * `success_statuses` (default: any 2xx). Role: integrations_admin. Errors: 409 `name_taken`; 422
   * `unknown_system_parameters`, `invalid_template`, `invalid_header_value`, `invalid_url`,
   * `reserved_header`; 503 `secrets_unavailable`.
   */
  create: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      status: 201,
      openapi: { method: 'POST', path: '/core/integrations', tags: ['integrations'], summary: 'Create an Integration' },
    })
    .input(z.object({ data: strictBody(writeDocument('integration', integrationCreateAttributes)) }))
    .output(singleDocument(integrationResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.integrations.create.mutate(input.data.attributes, ctx.forward)),
    })),

  /**
   * Update an Integration (omitted attributes are kept; templates re-validated). Tasks running it use
   * the new definition from their next execution. Role: integrations_admin. Errors: as create, 404.
   */
  update: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      openapi: {
        method: 'PATCH',
        path: '/core/integrations/{id}',
        tags: ['integrations'],
        summary: 'Update an Integration',
      },
    })
    .input(z.object({ id: idSchema, data: strictBody(writeDocument('integration', integrationUpdateAttributes)) }))
    .output(singleDocument(integrationResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.catalog.integrations.update.mutate({ id: input.id, ...input.data.attributes }, ctx.forward),
      ),
    })),

  /** Delete an Integration no task runs; 204. Role: integrations_admin. Errors: 404, 409 `integration_in_use`. */
  delete: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      status: 204,
      openapi: {
        method: 'DELETE',
        path: '/core/integrations/{id}',
        tags: ['integrations'],
        summary: 'Delete an Integration',
      },
    })
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.catalog.integrations.delete.mutate(input, ctx.forward);
    }),
});
