/**
 * Contracts of the secrets service beyond the system parameter DTO (which lives in `resources.ts`):
 * the audit trail of system parameters, and the shapes of save-time template validation that
 * other services (catalog's integrations) consume.
 */
import { z } from 'zod';
import { idSchema, timestampSchema } from './jsonapi.js';

/** What an audit entry records. */
export const auditActionSchema = z.enum(['create', 'update', 'delete']);
/** `create`, `update` or `delete`. */
export type AuditAction = z.infer<typeof auditActionSchema>;

/**
 * Attributes of one audit entry of a system parameter: who changed it when, and the versions before
 * and after — never the value. `parameter_name` survives the parameter's deletion.
 */
export const systemParameterAuditAttributes = z
  .object({
    parameter_name: z.string().meta({ example: 'payments_api_key' }),
    action: auditActionSchema,
    actor: z
      .string()
      .meta({ description: 'Id of the user who made the change, or `service:<name>` for a service.', example: '1' }),
    old_version: z.number().int().nullable().meta({ description: 'Version before the change; null for a create.' }),
    new_version: z.number().int().nullable().meta({ description: 'Version after the change; null for a delete.' }),
    created_at: timestampSchema,
  })
  .meta({ id: 'SystemParameterAuditEventAttributes' });

/** One audit entry as the secrets service returns it (`systemParameters.auditLog`). */
export const auditEntryDto = systemParameterAuditAttributes.extend({ id: idSchema, parameter_id: idSchema });
/** An audit entry: `{id, parameter_id, parameter_name, action, actor, old_version, new_version, created_at}`. */
export type AuditEntryDto = z.infer<typeof auditEntryDto>;

/** One problem found by save-time template validation (`resolution.validate`). */
export const templateProblemSchema = z.object({
  /** Index of the template in the request. */
  index: z.number().int(),
  /** The `pointer` the caller sent with that template (e.g. `/data/attributes/url`), if any. */
  pointer: z.string().optional(),
  /** `invalid_template`, `invalid_header_value`, `temporary_credentials_not_allowed` or `unknown_system_parameters`. */
  code: z.string(),
  detail: z.string(),
  /** For `unknown_system_parameters`: `{missing: string[]}`. */
  meta: z.record(z.string(), z.unknown()).optional(),
});
/** A problem of one template. */
export type TemplateProblem = z.infer<typeof templateProblemSchema>;

/** Result of `resolution.validate`. */
export const templateValidationSchema = z.object({
  /** True when no template has a problem. */
  valid: z.boolean(),
  /** Every unknown parameter name across all templates, sorted. */
  missing: z.array(z.string()),
  /** Problems, by template index. */
  errors: z.array(templateProblemSchema),
  /** `referenced[i]`: the distinct names templates[i] references, in order of appearance (empty when it does not parse). */
  referenced: z.array(z.array(z.string())),
});
/** `{valid, missing, errors, referenced}`. */
export type TemplateValidation = z.infer<typeof templateValidationSchema>;
