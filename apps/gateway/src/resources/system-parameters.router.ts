/**
 * REST `/core/system_parameters` (no counterpart in the reference API, which has a settings UI only).
 * Secret values are write-only: every read shows `value: null` for them. A parameter is addressable
 * by id or by its system name.
 *
 * Limits (enforced by the secrets service): a value holds at most SYSTEM_PARAMETER_VALUE_MAX_BYTES
 * (16 KiB) of UTF-8 — larger is 413 `value_too_large`; an instance holds at most
 * `SECRETS_MAX_PARAMETERS` parameters (default 10,000) — creating more is 422 `parameter_limit_reached`.
 *
 * Optimistic concurrency on PATCH, two equivalent ways to say "the version I read":
 * - `If-Match: "<version>"` (HTTP precondition, RFC 9110): stale → 412 `precondition_failed`;
 * - `meta.expected_version` in the body: stale → 409 `version_conflict`.
 * Both carry `meta: {expected_version, current_version}`. Without either, the update applies to
 * whatever version is current (last writer wins).
 */
import {
  type AuditEntryDto,
  badRequest,
  listDocument as listDocumentSchema,
  pageQueryShape,
  previewResultSchema,
  resourceSchema,
  SYSTEM_PARAMETER_VALUE_MAX_BYTES,
  type SystemParameterDto,
  singleDocument,
  strictBody,
  systemNameSchema,
  systemParameterAttributes,
  systemParameterAuditAttributes,
  systemParameterCreateAttributes,
  systemParameterUpdateAttributes,
  templateContextSchema,
  toOne,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, one, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

/** The `system_parameter` resource. */
export const systemParameterResource = resourceSchema('system_parameter', systemParameterAttributes).meta({
  id: 'SystemParameter',
});
const toResource = ({ id, ...attributes }: SystemParameterDto) => ({
  id,
  type: 'system_parameter' as const,
  attributes,
});

/** The `system_parameter_audit_event` resource: one create, update or delete of a parameter. */
export const systemParameterAuditEventResource = resourceSchema(
  'system_parameter_audit_event',
  systemParameterAuditAttributes,
  z.object({
    system_parameter: toOne('system_parameter').meta({
      description: 'The parameter changed (it may have been deleted since).',
    }),
    user: toOne('user').meta({ description: 'The user who made the change; null when a service did.' }),
  }),
).meta({ id: 'SystemParameterAuditEvent' });
const toAuditResource = ({ id, parameter_id, ...attributes }: AuditEntryDto) => ({
  id,
  type: 'system_parameter_audit_event' as const,
  attributes,
  relationships: {
    system_parameter: one('system_parameter', parameter_id),
    user: one('user', /^[1-9][0-9]*$/.test(attributes.actor) ? attributes.actor : null),
  },
});

const idOrName = z
  .string()
  .regex(/^([1-9][0-9]{0,15}|[a-z][a-z0-9_]{0,63})$/, 'must be a parameter id or system name')
  .meta({ description: 'Parameter id, or its system name.', example: 'payments_api_key' });
const isId = (idOrName: string) => /^[1-9][0-9]*$/.test(idOrName);

const STRONG_ETAG = /^"([1-9][0-9]{0,9})"$/;

/**
 * The version an `If-Match` header requires: undefined when absent or `*` (any current version).
 * @throws {AppError} 400 `bad_request` (source `header: If-Match`) for anything but `*` or one strong
 *   entity tag `"<version>"`.
 */
export function ifMatchVersion(header: string | null): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (value === '*') return undefined;
  const match = STRONG_ETAG.exec(value);
  if (!match?.[1]) {
    throw badRequest(
      'If-Match must be "*" or one entity tag made of the version you read, in double quotes, e.g. If-Match: "3".',
      { header: 'If-Match' },
    );
  }
  return Number(match[1]);
}

const AUDIT_DESCRIPTION =
  'Audit events never hold values. `actor` is the user id, or `service:<name>` for a change made by a service; ' +
  '`relationships.user` links the user. Role: integrations_admin.';

/** `systemParameters.{list,get,create,update,delete,preview,auditEvents,auditEventsOf}` — REST under `/core`. */
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
   * Errors: 409 `name_taken`, 413 `value_too_large`, 422 `parameter_limit_reached` / validation.
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
        description:
          `Creates a parameter at version 1. A secret parameter's value (the default) is write-only: no read, list, error or log shows it. ` +
          `Limits: a value holds at most ${SYSTEM_PARAMETER_VALUE_MAX_BYTES} bytes of UTF-8 (413 \`value_too_large\`); ` +
          'an instance holds at most SECRETS_MAX_PARAMETERS parameters, 10,000 by default (422 `parameter_limit_reached`). ' +
          'A taken name is 409 `name_taken`.',
      },
    })
    .input(z.object({ data: strictBody(writeDocument('system_parameter', systemParameterCreateAttributes)) }))
    .output(singleDocument(systemParameterResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.secrets.systemParameters.create.mutate(input.data.attributes, ctx.forward)),
    })),

  /**
   * Update a System Parameter. Omitting `value` keeps it. Optimistic concurrency: send the version
   * you read as `If-Match: "<version>"` (stale → 412 `precondition_failed`) or as
   * `meta.expected_version` (stale → 409 `version_conflict`). Role: integrations_admin.
   * Errors: 400 malformed If-Match, 404, 409, 412, 413 `value_too_large`, 422 `name_immutable`.
   */
  update: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      openapi: {
        method: 'PATCH',
        path: '/core/system_parameters/{id}',
        tags: ['system_parameters'],
        summary: 'Update a System Parameter',
        requestHeaders: z.object({
          'if-match': z.string().optional().meta({
            description:
              'The version you read, as an entity tag: `"3"`. Stale → 412 `precondition_failed`; `*` = any version.',
            example: '"3"',
          }),
        }),
        description:
          'Changes `display_name`, `description` and/or `value` (an omitted `value` is kept) and increments `version`. ' +
          'To make sure nobody changed the parameter since you read it, send the `version` you read either as the header ' +
          '`If-Match: "<version>"` — a stale one is **412** `precondition_failed` — or as `meta.expected_version` in the body — ' +
          'a stale one is **409** `version_conflict`; both errors carry `meta.expected_version` and `meta.current_version`. ' +
          '`If-Match: *` and no precondition at all update whatever version is current. The name is immutable ' +
          `(422 \`name_immutable\`); a value holds at most ${SYSTEM_PARAMETER_VALUE_MAX_BYTES} bytes of UTF-8 (413 \`value_too_large\`).`,
      },
    })
    .input(
      z.object({
        id: idOrName,
        data: strictBody(
          writeDocument(
            'system_parameter',
            systemParameterUpdateAttributes.extend({
              name: systemNameSchema.optional().meta({
                description: 'Immutable: if sent, it must equal the current name (else 422 `name_immutable`).',
              }),
            }),
          ),
        ),
        meta: strictBody(z.object({ expected_version: z.number().int().min(1).optional() })).optional(),
      }),
    )
    .output(singleDocument(systemParameterResource))
    .mutation(async ({ ctx, input }) => {
      const ifMatch = ifMatchVersion(ctx.ifMatch);
      return {
        data: toResource(
          await ctx.deps.secrets.systemParameters.update.mutate(
            {
              id_or_name: input.id,
              ...input.data.attributes,
              ...(input.meta?.expected_version ? { expected_version: input.meta.expected_version } : {}),
              ...(ifMatch === undefined ? {} : { if_match_version: ifMatch }),
            },
            ctx.forward,
          ),
        ),
      };
    }),

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
   * Body: `{"data": {"template": "…", "context": "text|url|header|json", "field_type"?: "…"}}`.
   * Role: developer. Errors: 422 `invalid_template`, `invalid_url`, `invalid_header_value`,
   * `temporary_credentials_not_allowed`.
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
            field_type: z.string().max(64).optional().meta({
              description:
                'The custom field type the template belongs to; `temporary_credentials` fields cannot reference system parameters.',
            }),
          }),
        ),
      }),
    )
    .output(z.object({ data: previewResultSchema }))
    .mutation(async ({ ctx, input }) => ({
      data: await ctx.deps.secrets.systemParameters.preview.mutate(input.data, ctx.forward),
    })),

  /**
   * List System Parameter Audit Events of every parameter, newest first. Filter `parameter_name`.
   * Pagination as List Runbooks. Role: integrations_admin. Errors: 400 `invalid_cursor`.
   */
  auditEvents: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      openapi: {
        method: 'GET',
        path: '/core/system_parameter_audit_events',
        tags: ['system_parameters'],
        summary: 'List System Parameter Audit Events',
        description: `Every create, update and delete of a system parameter, newest first. ${AUDIT_DESCRIPTION}`,
      },
    })
    .input(
      z.object({
        parameter_name: z
          .string()
          .max(64)
          .regex(/^[a-z][a-z0-9_]*$/, 'must be a system name')
          .optional()
          .meta({ description: 'Only events of parameters that had this name (also deleted ones).' }),
        ...pageQueryShape,
      }),
    )
    .output(listDocumentSchema(systemParameterAuditEventResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.secrets.systemParameters.auditLog.query(
        { ...(input.parameter_name ? { parameter_name: input.parameter_name } : {}), page: pageRequestOf(input) },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        '/core/system_parameter_audit_events',
        { parameter_name: input.parameter_name },
        input,
        page,
        toAuditResource,
      );
    }),

  /**
   * List the Audit Events of one System Parameter, newest first: by id (also after its deletion) or
   * by name (every parameter that ever had it). Role: integrations_admin. Errors: 400 `invalid_cursor`.
   */
  auditEventsOf: forwardingProcedure
    .meta({
      role: 'integrations_admin',
      openapi: {
        method: 'GET',
        path: '/core/system_parameters/{id}/audit_events',
        tags: ['system_parameters'],
        summary: 'List the Audit Events of a System Parameter',
        description:
          'The trail of one parameter, newest first. By id it stays readable after the parameter is deleted; by name it ' +
          `covers every parameter that ever had the name. An id or name without events gives an empty list. ${AUDIT_DESCRIPTION}`,
      },
    })
    .input(z.object({ id: idOrName, ...pageQueryShape }))
    .output(listDocumentSchema(systemParameterAuditEventResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.secrets.systemParameters.auditLog.query(
        {
          ...(isId(input.id) ? { parameter_id: input.id } : { parameter_name: input.id }),
          page: pageRequestOf(input),
        },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        `/core/system_parameters/${input.id}/audit_events`,
        {},
        input,
        page,
        toAuditResource,
      );
    }),
});
