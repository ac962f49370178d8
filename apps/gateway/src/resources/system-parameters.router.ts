/**
 * REST `/core/system_parameters` (no counterpart in the reference API, which has a settings UI only).
 * Secret values are write-only: every read shows `value: null` for them. A parameter is addressable
 * by id or by its system name.
 */
import {
  listDocument as listDocumentSchema,
  pageQueryShape,
  previewResultSchema,
  resourceSchema,
  type SystemParameterDto,
  singleDocument,
  strictBody,
  systemParameterAttributes,
  systemParameterCreateAttributes,
  systemParameterUpdateAttributes,
  templateContextSchema,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

export const systemParameterResource = resourceSchema('system_parameter', systemParameterAttributes).meta({
  id: 'SystemParameter',
});
const toResource = ({ id, ...attributes }: SystemParameterDto) => ({
  id,
  type: 'system_parameter' as const,
  attributes,
});

const idOrName = z
  .string()
  .regex(/^([1-9][0-9]{0,15}|[a-z][a-z0-9_]{0,63})$/, 'must be a parameter id or system name')
  .meta({ description: 'Parameter id, or its system name.', example: 'payments_api_key' });

export const systemParametersRouter = router({
  /** List System Parameters by name. Filter `name_prefix`; pagination as List Runbooks. Role: developer. */
  list: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/system_parameters',
        tags: ['system_parameters'],
        summary: 'List System Parameters',
      },
    })
    .input(z.object({ name_prefix: z.string().max(64).optional(), ...pageQueryShape }))
    .output(listDocumentSchema(systemParameterResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.secrets.systemParameters.list.query(
        { ...(input.name_prefix ? { name_prefix: input.name_prefix } : {}), page: pageRequestOf(input) },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        '/core/system_parameters',
        { name_prefix: input.name_prefix },
        input,
        page,
        toResource,
      );
    }),

  /** Get a System Parameter by id or name (`value` null when secret). Errors: 404. Role: developer. */
  get: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/system_parameters/{id}',
        tags: ['system_parameters'],
        summary: 'Get a System Parameter',
      },
    })
    .input(z.object({ id: idOrName }))
    .output(singleDocument(systemParameterResource))
    .query(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.secrets.systemParameters.get.query({ id_or_name: input.id }, ctx.forward)),
    })),

  /**
   * Create a System Parameter: attributes `name` (`^[a-z][a-z0-9_]*$`, ≤ 64, immutable), `value`,
   * `secret` (default true: write-only), `display_name?`, `description?`. Role: integrations_admin.
   * Errors: 409 `name_taken`, 413 `value_too_large`, 422.
   */
  create: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      status: 201,
      openapi: {
        method: 'POST',
        path: '/core/system_parameters',
        tags: ['system_parameters'],
        summary: 'Create a System Parameter',
      },
    })
    .input(z.object({ data: strictBody(writeDocument('system_parameter', systemParameterCreateAttributes)) }))
    .output(singleDocument(systemParameterResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.secrets.systemParameters.create.mutate(input.data.attributes, ctx.forward)),
    })),

  /**
   * Update a System Parameter. Omitting `value` keeps it. Send the version you read as
   * `meta.expected_version` (or `If-Match: "<version>"`) for optimistic concurrency.
   * Role: integrations_admin. Errors: 404, 409 `version_conflict`, 413, 422.
   */
  update: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      openapi: {
        method: 'PATCH',
        path: '/core/system_parameters/{id}',
        tags: ['system_parameters'],
        summary: 'Update a System Parameter',
      },
    })
    .input(
      z.object({
        id: idOrName,
        data: strictBody(writeDocument('system_parameter', systemParameterUpdateAttributes)),
        meta: strictBody(z.object({ expected_version: z.number().int().min(1).optional() })).optional(),
      }),
    )
    .output(singleDocument(systemParameterResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.secrets.systemParameters.update.mutate(
          {
            id_or_name: input.id,
            ...input.data.attributes,
            ...(input.meta?.expected_version ? { expected_version: input.meta.expected_version } : {}),
          },
          ctx.forward,
        ),
      ),
    })),

  /** Delete a System Parameter; 204. Role: integrations_admin. Errors: 404. */
  delete: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      status: 204,
      openapi: {
        method: 'DELETE',
        path: '/core/system_parameters/{id}',
        tags: ['system_parameters'],
        summary: 'Delete a System Parameter',
      },
    })
    .input(z.object({ id: idOrName }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.secrets.systemParameters.delete.mutate({ id_or_name: input.id }, ctx.forward);
    }),

  /**
   * Preview a template as the caller would see it resolved: every secret value masked as `••••`,
   * references listed with versions, unknown names in `missing` (and `result` null).
   * Body: `{"data": {"template": "…", "context": "text|url|header|json"}}`. Role: developer.
   */
  preview: forwardingProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/core/system_parameters/preview',
        tags: ['system_parameters'],
        summary: 'Preview a template',
      },
    })
    .input(
      z.object({
        data: strictBody(
          z.object({
            template: z.string().max(65_536).meta({ example: 'Bearer {{system.payments_api_key}}' }),
            context: templateContextSchema.default('text'),
          }),
        ),
      }),
    )
    .output(z.object({ data: previewResultSchema }))
    .mutation(async ({ ctx, input }) => ({
      data: await ctx.deps.secrets.systemParameters.preview.mutate(input.data, ctx.forward),
    })),
});
