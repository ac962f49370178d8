/** `systemParameters.*` procedures: thin — input → service → output. Secret values never leave through any of them. */
import {
  auditEntryDto,
  idSchema,
  pageRequestSchema,
  pageSchema,
  previewResultSchema,
  systemNameSchema,
  systemParameterCreateAttributes,
  systemParameterDto,
  systemParameterUpdateAttributes,
  templateContextSchema,
} from '@runbook/contracts';
import { z } from 'zod';
import { previewTemplate } from '../resolution/resolution.service.js';
import { TEMPLATE_MAX_LENGTH } from '../resolution/template.js';
import { authedProcedure, router } from '../trpc.js';
import * as service from './system-parameters.service.js';

/** A parameter id (decimal string) or system name. */
const idOrNameSchema = z
  .string()
  .regex(/^([1-9][0-9]{0,15}|[a-z][a-z0-9_]{0,63})$/, 'must be a parameter id or system name');

/** `systemParameters.{list,get,create,update,delete,auditLog,preview}`. */
export const systemParametersRouter = router({
  /**
   * Parameters by name, optionally those whose name starts with `name_prefix`.
   * Input `{name_prefix?, page: {number?, size?, after?}}`. Output: Page<SystemParameterDto>
   * (`value` null when secret). Errors: 400 bad cursor.
   */
  list: authedProcedure
    .input(
      z.object({
        name_prefix: z
          .string()
          .max(64)
          .regex(/^[a-z0-9_]*$/, 'must contain only a-z, 0-9 and _')
          .optional(),
        page: pageRequestSchema.prefault({}),
      }),
    )
    .output(pageSchema(systemParameterDto))
    .query(({ ctx, input }) => service.listParameters(ctx.deps, input, input.page)),

  /** One parameter. Input `{id_or_name}` (numeric = id). Output: SystemParameterDto. Errors: 404. */
  get: authedProcedure
    .input(z.object({ id_or_name: idOrNameSchema }))
    .output(systemParameterDto)
    .query(({ ctx, input }) => service.getParameter(ctx.deps, input.id_or_name)),

  /**
   * Creates a parameter (version 1). Input: SystemParameterCreateAttributes
   * `{name, value, secret = true, display_name?, description = ''}`. Output: SystemParameterDto.
   * Role: integrations_admin. Errors: 409 `name_taken`, 413 `value_too_large`, 422 `parameter_limit_reached` / validation.
   */
  create: authedProcedure
    .meta({ role: 'integrations_admin' })
    .input(systemParameterCreateAttributes)
    .output(systemParameterDto)
    .mutation(({ ctx, input }) => service.createParameter(ctx.deps, ctx.principal, input)),

  /**
   * Updates display name, description and/or value (omitted = kept); version +1.
   * Input `{id_or_name, display_name?, description?, value?, expected_version?, if_match_version?, name?}`
   * (`name` must equal the stored one; `if_match_version` carries a REST `If-Match`). Output:
   * SystemParameterDto. Role: integrations_admin. Errors: 404, 409 `version_conflict` (stale
   * `expected_version`), 412 `precondition_failed` (stale `if_match_version`), 413 `value_too_large`,
   * 422 `name_immutable`.
   */
  update: authedProcedure
    .meta({ role: 'integrations_admin' })
    .input(
      systemParameterUpdateAttributes.extend({
        id_or_name: idOrNameSchema,
        name: systemNameSchema.optional(),
        expected_version: z.number().int().min(1).optional(),
        if_match_version: z.number().int().min(1).optional(),
      }),
    )
    .output(systemParameterDto)
    .mutation(({ ctx, input }) => service.updateParameter(ctx.deps, ctx.principal, input)),

  /** Deletes a parameter. Input `{id_or_name}`. Output: void. Role: integrations_admin. Errors: 404. */
  delete: authedProcedure
    .meta({ role: 'integrations_admin' })
    .input(z.object({ id_or_name: idOrNameSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => service.deleteParameter(ctx.deps, ctx.principal, input.id_or_name)),

  /**
   * Audit entries, newest first. Input `{parameter_id?, parameter_name?, page}` (an id matches
   * after deletion; a name matches every parameter that ever had it). Output: Page<AuditEntryDto>.
   * Role: integrations_admin. Errors: 400 bad cursor.
   */
  auditLog: authedProcedure
    .meta({ role: 'integrations_admin' })
    .input(
      z.object({
        parameter_id: idSchema.optional(),
        parameter_name: systemNameSchema.optional(),
        page: pageRequestSchema.prefault({}),
      }),
    )
    .output(pageSchema(auditEntryDto))
    .query(({ ctx, input }) => service.listAuditEntries(ctx.deps, input, input.page)),

  /**
   * Masked preview of a template (secrets as `••••`); a mutation (POST) because templates do not
   * fit in a query string. Input `{template (≤ 64 KiB), context = 'text', field_type?}`.
   * Output: PreviewResult `{result | null, references: [{name, version, secret}], missing}`.
   * Errors: 422 `invalid_template`, `invalid_header_value`, `invalid_url`, `temporary_credentials_not_allowed`.
   */
  preview: authedProcedure
    .input(
      z.object({
        template: z.string().max(TEMPLATE_MAX_LENGTH),
        context: templateContextSchema.default('text'),
        field_type: z.string().max(64).optional(),
      }),
    )
    .output(previewResultSchema)
    .mutation(({ ctx, input }) => previewTemplate(ctx.deps, input)),
});
