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
/** A workspace as services exchange it: its attributes plus the `id` (string). */
export const workspaceDto = workspaceAttributes.extend({ id: idSchema });
/** TypeScript type of {@link workspaceDto}. */
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

/** Runbook attributes published by `GET /core/runbooks[/{id}]`; `run_type` is null until the first run starts, timestamps are ISO-8601 UTC. */
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
/** A runbook as services exchange it: its attributes plus `id` and `workspace_id` (strings). */
export const runbookDto = runbookAttributes.extend({ id: idSchema, workspace_id: idSchema });
/** TypeScript type of {@link runbookDto}. */
export type RunbookDto = z.infer<typeof runbookDto>;

/** Fields accepted when creating a runbook (`POST /core/runbooks`); name 1–200 characters after trimming, description at most 20,000. */
export const runbookCreateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ example: 'Q4 database failover' }),
    description: z.string().max(20_000).default('').meta({ example: 'Fail the primary over to the standby region.' }),
    is_template: z.boolean().default(false),
  })
  .meta({ id: 'RunbookCreateAttributes' });
/** Fields accepted when updating a runbook (`PATCH /core/runbooks/{id}`); omitted fields keep their value. */
export const runbookUpdateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(20_000).optional(),
  })
  .meta({ id: 'RunbookUpdateAttributes' });

// ── tasks ────────────────────────────────────────────────────────────────────────────────────

/** Task stages (reference API). "Skipped" is `complete` with `completion_type` `complete_skipped`. */
export const taskStageSchema = z.enum(['not_startable', 'startable', 'in_progress', 'complete']);
/** How a complete task completed (reference API): normally, skipped (with a comment), abandoned, or by itself (`complete_auto`); null until complete. */
export const completionTypeSchema = z.enum([
  'complete_normal',
  'complete_skipped',
  'complete_abandoned',
  'complete_auto',
]);

/** Task attributes published by the task routes: `duration` in seconds, `start_actual`/`end_actual` null until the task starts/ends, timestamps ISO-8601 UTC. */
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
/** A task as services exchange it: its attributes plus `id`, `runbook_id` and `predecessor_ids` (strings). */
export const taskDto = taskAttributes.extend({
  id: idSchema,
  runbook_id: idSchema,
  predecessor_ids: z.array(idSchema),
});
/** TypeScript type of {@link taskDto}. */
export type TaskDto = z.infer<typeof taskDto>;

/** Fields accepted when creating a task: name 1–200 characters, `duration` 0–31,536,000 seconds (default 0). */
export const taskCreateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ example: 'Stop writes on the primary' }),
    description: z.string().max(20_000).default(''),
    duration: z.number().int().min(0).max(31_536_000).default(0).meta({ description: 'Seconds.', example: 300 }),
    auto_start: z.boolean().default(false),
    auto_finish: z.boolean().default(false),
  })
  .meta({ id: 'TaskCreateAttributes' });
/** Fields accepted when updating a task; omitted fields keep their value (same limits as {@link taskCreateAttributes}). */
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
/** Longest system name, in characters (DESIGN §5). */
export const SYSTEM_NAME_MAX = 64;
/** Largest value accepted, in bytes of UTF-8. */
export const SYSTEM_PARAMETER_VALUE_MAX_BYTES = 16_384;

/** A system parameter's system name: {@link SYSTEM_NAME_PATTERN}, at most {@link SYSTEM_NAME_MAX} characters; immutable once created. */
export const systemNameSchema = z
  .string()
  .max(SYSTEM_NAME_MAX, `must be at most ${SYSTEM_NAME_MAX} characters`)
  .regex(SYSTEM_NAME_PATTERN, 'must start with a lower-case letter and contain only a–z, 0–9 and _')
  .meta({ example: 'payments_api_key' });

/** System parameter attributes as every read API returns them: `value` is null for a secret parameter (write-only), `version` increments on each change. */
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
/** A system parameter as services exchange it: its attributes plus `id` (string); never a secret's value. */
export const systemParameterDto = systemParameterAttributes.extend({ id: idSchema });
/** TypeScript type of {@link systemParameterDto}. */
export type SystemParameterDto = z.infer<typeof systemParameterDto>;

/** Fields accepted when creating a system parameter: `secret` defaults to true, `value` at most {@link SYSTEM_PARAMETER_VALUE_MAX_BYTES} bytes of UTF-8. */
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
/** Fields accepted when updating a system parameter (the name is immutable); omitted fields keep their value. */
export const systemParameterUpdateAttributes = z
  .object({
    display_name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(5000).optional(),
    value: z.string().optional().meta({ description: 'Omit to keep the stored value.' }),
  })
  .meta({ id: 'SystemParameterUpdateAttributes' });

/** Where a resolved template is used; decides escaping (DESIGN §5). */
export const templateContextSchema = z.enum(['text', 'url', 'header', 'json']);
/** TypeScript type of {@link templateContextSchema}. */
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

/** User attributes: `name` is first and last name joined, `roles` the user's global and workspace-scoped role assignments. */
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
/** A user as services exchange it: its attributes plus `id` (string). */
export const userDto = userAttributes.extend({ id: idSchema });
/** TypeScript type of {@link userDto}. */
export type UserDto = z.infer<typeof userDto>;

/** User app token attributes; the token itself is shown once at creation and never again (only `token_prefix` is kept readable). */
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
/** A user app token as services exchange it: its attributes plus `id` and `user_id` (strings); never the token. */
export const userAppTokenDto = userAppTokenAttributes.extend({ id: idSchema, user_id: idSchema });
/** TypeScript type of {@link userAppTokenDto}. */
export type UserAppTokenDto = z.infer<typeof userAppTokenDto>;

/** Fields accepted when creating a user app token: a label of 1–100 characters and an optional `expires_at` (ISO-8601; omitted: never expires). */
export const userAppTokenCreateAttributes = z
  .object({
    label: z.string().trim().min(1).max(100).meta({ example: 'CI pipeline' }),
    expires_at: timestampSchema.optional().meta({ description: 'Omit for a token that does not expire.' }),
  })
  .meta({ id: 'UserAppTokenCreateAttributes' });
