/**
 * DTOs exchanged between services over tRPC (flat objects, ids as strings, timestamps as ISO-8601
 * UTC) and the attribute schemas the gateway publishes as JSON:API resources.
 */
import { z } from 'zod';
import { roleAssignmentSchema } from './auth.js';
import { idSchema, timestampSchema } from './jsonapi.js';

// ── workspaces ───────────────────────────────────────────────────────────────────────────────

/** Workspace attributes. `key` is a short unique code (2–10 upper-case letters/digits). */
export const workspaceAttributes = z
  .object({
    name: z.string(),
    key: z.string().nullable(),
    description: z.string(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'WorkspaceAttributes' });
export const workspaceDto = workspaceAttributes.extend({ id: idSchema });
export type WorkspaceDto = z.infer<typeof workspaceDto>;

/** Fields accepted when creating a workspace. */
export const workspaceCreateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ example: 'Payments' }),
    key: z
      .string()
      .regex(/^[A-Z][A-Z0-9]{1,9}$/, 'must be 2–10 upper-case letters or digits, starting with a letter')
      .optional()
      .meta({ example: 'PAY' }),
    description: z.string().max(5000).default('').meta({ example: 'Payments platform releases' }),
  })
  .meta({ id: 'WorkspaceCreateAttributes' });

// ── runbooks ─────────────────────────────────────────────────────────────────────────────────

/** Runbook stages (reference API): planning → active ⇄ paused → complete | canceled. */
export const runbookStageSchema = z.enum(['planning', 'active', 'paused', 'complete', 'canceled']);
/** Run type of an active run. */
export const runTypeSchema = z.enum(['live', 'rehearsal']);

export const runbookAttributes = z
  .object({
    name: z.string(),
    description: z.string(),
    stage: runbookStageSchema,
    run_type: runTypeSchema.nullable(),
    is_template: z.boolean(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'RunbookAttributes' });
export const runbookDto = runbookAttributes.extend({ id: idSchema, workspace_id: idSchema });
export type RunbookDto = z.infer<typeof runbookDto>;

export const runbookCreateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ example: 'Q4 database failover' }),
    description: z.string().max(20_000).default('').meta({ example: 'Fail the primary over to the standby region.' }),
    is_template: z.boolean().default(false),
  })
  .meta({ id: 'RunbookCreateAttributes' });
export const runbookUpdateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(20_000).optional(),
  })
  .meta({ id: 'RunbookUpdateAttributes' });

// ── tasks ────────────────────────────────────────────────────────────────────────────────────

/** Task stages (reference API). "Skipped" is `complete` with `completion_type` `complete_skipped`. */
export const taskStageSchema = z.enum(['not_startable', 'startable', 'in_progress', 'complete']);
export const completionTypeSchema = z.enum([
  'complete_normal',
  'complete_skipped',
  'complete_abandoned',
  'complete_auto',
]);

export const taskAttributes = z
  .object({
    name: z.string(),
    description: z.string(),
    stage: taskStageSchema,
    completion_type: completionTypeSchema.nullable(),
    duration: z.number().int().meta({ description: 'Planned duration in seconds.' }),
    auto_start: z.boolean(),
    auto_finish: z.boolean(),
    start_actual: timestampSchema.nullable(),
    end_actual: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'TaskAttributes' });
export const taskDto = taskAttributes.extend({
  id: idSchema,
  runbook_id: idSchema,
  predecessor_ids: z.array(idSchema),
});
export type TaskDto = z.infer<typeof taskDto>;

export const taskCreateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ example: 'Stop writes on the primary' }),
    description: z.string().max(20_000).default(''),
    duration: z.number().int().min(0).max(31_536_000).default(0).meta({ description: 'Seconds.', example: 300 }),
    auto_start: z.boolean().default(false),
    auto_finish: z.boolean().default(false),
  })
  .meta({ id: 'TaskCreateAttributes' });
export const taskUpdateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(20_000).optional(),
    duration: z.number().int().min(0).max(31_536_000).optional(),
    auto_start: z.boolean().optional(),
    auto_finish: z.boolean().optional(),
  })
  .meta({ id: 'TaskUpdateAttributes' });

// ── system parameters ────────────────────────────────────────────────────────────────────────

/** System name rule (DESIGN §5): lower-case letter first, then lower-case letters, digits, underscores; ≤ 64. */
export const SYSTEM_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
export const SYSTEM_NAME_MAX = 64;
/** Largest value accepted, in bytes of UTF-8. */
export const SYSTEM_PARAMETER_VALUE_MAX_BYTES = 16_384;

export const systemNameSchema = z
  .string()
  .max(SYSTEM_NAME_MAX, `must be at most ${SYSTEM_NAME_MAX} characters`)
  .regex(SYSTEM_NAME_PATTERN, 'must start with a lower-case letter and contain only a–z, 0–9 and _')
  .meta({ example: 'payments_api_key' });

export const systemParameterAttributes = z
  .object({
    name: systemNameSchema,
    display_name: z.string(),
    description: z.string(),
    secret: z.boolean(),
    value: z.string().nullable().meta({ description: 'The value; always null for secret parameters (write-only).' }),
    version: z.number().int(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
    updated_by: z.string().nullable().meta({ description: 'Id of the user who last changed it.' }),
  })
  .meta({ id: 'SystemParameterAttributes' });
export const systemParameterDto = systemParameterAttributes.extend({ id: idSchema });
export type SystemParameterDto = z.infer<typeof systemParameterDto>;

export const systemParameterCreateAttributes = z
  .object({
    name: systemNameSchema,
    display_name: z.string().trim().min(1).max(200).optional().meta({ description: 'Defaults from the name.' }),
    description: z.string().max(5000).default(''),
    value: z.string().meta({
      example: 'https://payments.example.com',
      description: `At most ${SYSTEM_PARAMETER_VALUE_MAX_BYTES} bytes of UTF-8.`,
    }),
    secret: z.boolean().default(true),
  })
  .meta({ id: 'SystemParameterCreateAttributes' });
export const systemParameterUpdateAttributes = z
  .object({
    display_name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(5000).optional(),
    value: z.string().optional().meta({ description: 'Omit to keep the stored value.' }),
  })
  .meta({ id: 'SystemParameterUpdateAttributes' });

/** Where a resolved template is used; decides escaping (DESIGN §5). */
export const templateContextSchema = z.enum(['text', 'url', 'header', 'json']);
export type TemplateContext = z.infer<typeof templateContextSchema>;

/** A masked preview of a template. */
export const previewResultSchema = z
  .object({
    result: z.string().nullable().meta({
      description: 'The resolved text with every secret value shown as ••••; null when parameters are missing.',
    }),
    references: z.array(z.object({ name: z.string(), version: z.number().int(), secret: z.boolean() })),
    missing: z.array(z.string()),
  })
  .meta({ id: 'PreviewResult' });

// ── users and tokens ─────────────────────────────────────────────────────────────────────────

export const userAttributes = z
  .object({
    first_name: z.string(),
    last_name: z.string(),
    name: z.string(),
    email: z.string(),
    archived: z.boolean(),
    roles: z.array(roleAssignmentSchema),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'UserAttributes' });
export const userDto = userAttributes.extend({ id: idSchema });
export type UserDto = z.infer<typeof userDto>;

export const userAppTokenAttributes = z
  .object({
    label: z.string(),
    token_prefix: z.string().meta({ description: 'First characters of the token, to recognise it.' }),
    created_at: timestampSchema,
    expires_at: timestampSchema.nullable(),
    last_used_at: timestampSchema.nullable(),
    revoked_at: timestampSchema.nullable(),
  })
  .meta({ id: 'UserAppTokenAttributes' });
export const userAppTokenDto = userAppTokenAttributes.extend({ id: idSchema, user_id: idSchema });
export type UserAppTokenDto = z.infer<typeof userAppTokenDto>;

export const userAppTokenCreateAttributes = z
  .object({
    label: z.string().trim().min(1).max(100).meta({ example: 'CI pipeline' }),
    expires_at: timestampSchema.optional().meta({ description: 'Omit for a token that does not expire.' }),
  })
  .meta({ id: 'UserAppTokenCreateAttributes' });
