/**
 * DTOs of runbook orchestration (DESIGN §6): task and runbook detail (run state, assignees, custom
 * field values), run lifecycle options, integrations and their executions, custom field definitions,
 * comments, the stage-change log and where-used of system parameters. Flat objects between services;
 * the gateway publishes them as JSON:API resources.
 */
import { z } from 'zod';
import { idSchema, timestampSchema } from './jsonapi.js';
import { runbookAttributes, runTypeSchema, taskAttributes } from './resources.js';

// ── custom field values ──────────────────────────────────────────────────────────────────────

/** Largest custom field value, in characters. */
export const CUSTOM_FIELD_VALUE_MAX = 10_000;

/** One custom field value of a task or runbook. */
export const customFieldValueSchema = z
  .object({
    custom_field_id: idSchema,
    value: z.string().max(CUSTOM_FIELD_VALUE_MAX),
  })
  .meta({ id: 'CustomFieldValue' });
/** One custom field value. */
export type CustomFieldValue = z.infer<typeof customFieldValueSchema>;

/**
 * Custom field values sent on create/update: each entry sets one field; `value: null` removes it.
 * Fields not mentioned keep their value.
 */
export const customFieldValuesInput = z
  .array(z.object({ custom_field_id: idSchema, value: z.string().max(CUSTOM_FIELD_VALUE_MAX).nullable() }))
  .max(100);

// ── tasks ────────────────────────────────────────────────────────────────────────────────────

/** Who a task is assigned to: a user or a team of identity (ids validated for shape only). */
export const assigneeSchema = z.object({ type: z.enum(['user', 'team']), id: idSchema }).meta({ id: 'Assignee' });
/** A user or team a task is assigned to. */
export type Assignee = z.infer<typeof assigneeSchema>;

/**
 * State of an integration task's execution: `queued` (a job will send the request), `retrying`
 * (the last attempt failed; another is scheduled), `failed` (attempts exhausted: a human must
 * retry with start, finish or skip), `succeeded`. `null` for manual tasks and before the first start.
 */
export const executionStatusSchema = z.enum(['queued', 'retrying', 'failed', 'succeeded']);

/** Task attributes with run state, planning and relationships' ids (superset of `TaskAttributes`). */
export const taskDetailAttributes = taskAttributes
  .extend({
    start_planned: timestampSchema.nullable(),
    end_planned: timestampSchema.nullable(),
    custom_field_values: z.array(customFieldValueSchema),
    execution_status: executionStatusSchema.nullable().meta({
      description: 'Integration tasks: queued, retrying, failed (needs a human) or succeeded; null otherwise.',
    }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'The last execution error of an integration task (secrets masked).' }),
  })
  .meta({ id: 'TaskDetailAttributes' });

/** A task as catalog returns it. */
export const taskDetailDto = taskDetailAttributes.extend({
  id: idSchema,
  runbook_id: idSchema,
  predecessor_ids: z.array(idSchema),
  successor_ids: z.array(idSchema),
  assignees: z.array(assigneeSchema),
  integration_id: idSchema.nullable(),
});
/** A task as catalog returns it. */
export type TaskDetailDto = z.infer<typeof taskDetailDto>;

/** Task fields accepted by create and update besides the base attributes. */
export const taskPlanningAttributes = z.object({
  start_planned: timestampSchema.nullable().optional(),
  end_planned: timestampSchema.nullable().optional(),
  custom_field_values: customFieldValuesInput.optional(),
});

/** Task list sort fields. */
export const taskSortFields = ['id', 'name', 'created_at'] as const;

// ── runbooks ─────────────────────────────────────────────────────────────────────────────────

/** Runbook attributes with custom field values (superset of `RunbookAttributes`). */
export const runbookDetailAttributes = runbookAttributes
  .extend({ custom_field_values: z.array(customFieldValueSchema) })
  .meta({ id: 'RunbookDetailAttributes' });
/** A runbook as catalog returns it. */
export const runbookDetailDto = runbookDetailAttributes.extend({ id: idSchema, workspace_id: idSchema });
/** A runbook as catalog returns it. */
export type RunbookDetailDto = z.infer<typeof runbookDetailDto>;

/** `meta` of `PATCH /core/runbooks/{id}/start`. */
export const runbookStartMeta = z
  .object({ run_type: runTypeSchema.default('live').meta({ description: 'live (default) or rehearsal.' }) })
  .meta({ id: 'RunbookStartMeta' });
/** `meta` of pause, resume and cancel: an optional message recorded with the stage change. */
export const runbookActionMeta = z
  .object({ message: z.string().trim().max(2000).optional() })
  .meta({ id: 'RunbookActionMeta' });
/** `meta` of `PATCH …/tasks/{id}/skip`: the reason, required. */
export const taskSkipMeta = z.object({ comment: z.string().trim().min(1).max(20_000) }).meta({ id: 'TaskSkipMeta' });

// ── stage-change log ─────────────────────────────────────────────────────────────────────────

/** Kinds of recorded events. */
export const runEventKindSchema = z.enum([
  'runbook_started',
  'runbook_paused',
  'runbook_resumed',
  'runbook_canceled',
  'runbook_completed',
  'task_startable',
  'task_started',
  'task_completed',
  'task_retried',
  'task_execution_failed',
]);

/** Who caused an event: a user, a service, or the platform itself (`system`: auto start/finish, executions). */
export const actorSchema = z.object({ type: z.enum(['user', 'service', 'system']), id: z.string().nullable() });
/** Who caused an event or wrote a comment. */
export type Actor = z.infer<typeof actorSchema>;

/** One recorded stage change: kind, stages, who and when. */
export const runEventAttributes = z
  .object({
    kind: runEventKindSchema,
    from_stage: z.string().nullable(),
    to_stage: z.string().nullable(),
    completion_type: z.string().nullable(),
    run_type: runTypeSchema.nullable(),
    actor: actorSchema,
    message: z.string().nullable(),
    created_at: timestampSchema,
  })
  .meta({ id: 'RunEventAttributes' });
/** A recorded stage change as catalog returns it. */
export const runEventDto = runEventAttributes.extend({
  id: idSchema,
  runbook_id: idSchema,
  task_id: idSchema.nullable(),
});
/** A recorded stage change as catalog returns it. */
export type RunEventDto = z.infer<typeof runEventDto>;

// ── comments ─────────────────────────────────────────────────────────────────────────────────

/** A comment: body, author and time. */
export const commentAttributes = z
  .object({ body: z.string(), author: actorSchema, created_at: timestampSchema })
  .meta({ id: 'CommentAttributes' });
/** A comment as catalog returns it. */
export const commentDto = commentAttributes.extend({
  id: idSchema,
  runbook_id: idSchema,
  task_id: idSchema.nullable(),
});
/** A comment as catalog returns it. */
export type CommentDto = z.infer<typeof commentDto>;
/** Fields accepted when commenting. */
export const commentCreateAttributes = z
  .object({ body: z.string().trim().min(1).max(20_000).meta({ example: 'Standby promoted; checking lag.' }) })
  .meta({ id: 'CommentCreateAttributes' });

// ── integrations ─────────────────────────────────────────────────────────────────────────────

/** HTTP methods an integration may use. */
export const integrationMethodSchema = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
/** Default and bounds of an integration's timeout, in milliseconds. */
export const INTEGRATION_TIMEOUT_DEFAULT_MS = 10_000;
/** Longest integration timeout accepted, in milliseconds. */
export const INTEGRATION_TIMEOUT_MAX_MS = 30_000;

const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, 'must be an HTTP header name (token characters)');

/** A header sent by an integration; `value` is a template (`{{system.*}}` allowed). */
export const integrationHeaderSchema = z
  .object({ name: headerName, value: z.string().max(8192) })
  .meta({ id: 'IntegrationHeader' });

/** An integration: the HTTP request an integration task sends (templates unresolved). */
export const integrationAttributes = z
  .object({
    name: z.string(),
    description: z.string(),
    method: integrationMethodSchema,
    url: z.string().meta({ description: 'URL template, e.g. `{{system.payments_base_url}}/v1/charges`.' }),
    headers: z.array(integrationHeaderSchema),
    body: z.string().nullable().meta({ description: 'JSON body template (references inside JSON strings), or null.' }),
    timeout_ms: z.number().int(),
    success_statuses: z
      .array(z.number().int())
      .meta({ description: 'Statuses counted as success; empty means any 2xx.' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'IntegrationAttributes' });
/** An integration as catalog returns it. */
export const integrationDto = integrationAttributes.extend({ id: idSchema });
/** An integration as catalog returns it. */
export type IntegrationDto = z.infer<typeof integrationDto>;

const statusList = z.array(z.number().int().min(100).max(599)).max(50);

/** Fields accepted when creating an integration (defaults: POST, no headers, no body, 10 s, any 2xx). */
export const integrationCreateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).meta({ example: 'Page the on-call engineer' }),
    description: z.string().max(5000).default(''),
    method: integrationMethodSchema.default('POST'),
    url: z.string().min(1).max(8192).meta({ example: '{{system.pager_base_url}}/v2/enqueue' }),
    headers: z
      .array(integrationHeaderSchema)
      .max(50)
      .default([])
      .meta({ example: [{ name: 'Authorization', value: 'Token {{system.pager_token}}' }] }),
    body: z
      .string()
      .max(65_536)
      .nullable()
      .default(null)
      .meta({ example: '{"routing_key": "{{system.pager_routing_key}}", "event_action": "trigger"}' }),
    timeout_ms: z.number().int().min(100).max(INTEGRATION_TIMEOUT_MAX_MS).default(INTEGRATION_TIMEOUT_DEFAULT_MS),
    success_statuses: statusList.default([]),
  })
  .meta({ id: 'IntegrationCreateAttributes' });
/** Fields accepted when updating an integration; omitted ones are kept. */
export const integrationUpdateAttributes = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(5000).optional(),
    method: integrationMethodSchema.optional(),
    url: z.string().min(1).max(8192).optional(),
    headers: z.array(integrationHeaderSchema).max(50).optional(),
    body: z.string().max(65_536).nullable().optional(),
    timeout_ms: z.number().int().min(100).max(INTEGRATION_TIMEOUT_MAX_MS).optional(),
    success_statuses: statusList.optional(),
  })
  .meta({ id: 'IntegrationUpdateAttributes' });

// ── executions ───────────────────────────────────────────────────────────────────────────────

/**
 * Outcome of one execution attempt: `in_flight` (being sent), `succeeded`, `failed` (error or
 * unexpected status), `interrupted` (the catalog stopped while the request was in flight; it is
 * re-sent with the same `Idempotency-Key`).
 */
export const executionOutcomeSchema = z.enum(['in_flight', 'succeeded', 'failed', 'interrupted']);

/** One attempt to send an integration task’s request, secrets masked. */
export const executionAttributes = z
  .object({
    attempt: z.number().int().meta({ description: '1-based attempt number within the job.' }),
    idempotency_key: z.string(),
    outcome: executionOutcomeSchema,
    sent: z.boolean().meta({ description: 'Whether a request left the platform (false when resolution failed).' }),
    request_line: z.string().meta({ description: 'Method and URL, secrets masked (templates when not resolved).' }),
    request_headers: z.array(z.object({ name: z.string(), value: z.string() })),
    request_body: z.string().nullable().meta({ description: 'Excerpt of the body sent, secrets masked.' }),
    response_status: z.number().int().nullable(),
    response_excerpt: z.string().nullable().meta({ description: 'Start of the response body, secrets masked.' }),
    duration_ms: z.number().int().nullable(),
    error_code: z.string().nullable(),
    error_detail: z.string().nullable(),
    started_at: timestampSchema,
    finished_at: timestampSchema.nullable(),
  })
  .meta({ id: 'ExecutionAttributes' });
/** An execution as catalog returns it. */
export const executionDto = executionAttributes.extend({
  id: idSchema,
  task_id: idSchema,
  runbook_id: idSchema,
  integration_id: idSchema.nullable(),
});
/** An execution as catalog returns it. */
export type ExecutionDto = z.infer<typeof executionDto>;

// ── custom field definitions ─────────────────────────────────────────────────────────────────

/** Custom field types; `temporary_credentials` values may not reference system parameters. */
export const customFieldTypeSchema = z.enum(['text', 'textarea', 'select', 'temporary_credentials']);
/** What a custom field may be set on. */
export const customFieldAppliesToSchema = z.enum(['task', 'runbook', 'all']);

/** A custom field definition. */
export const customFieldAttributes = z
  .object({
    name: z.string(),
    description: z.string(),
    field_type: customFieldTypeSchema,
    applies_to: customFieldAppliesToSchema,
    options: z.array(z.string()).meta({ description: 'Allowed values of a select field; empty otherwise.' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'CustomFieldAttributes' });
/** A custom field definition as catalog returns it. */
export const customFieldDto = customFieldAttributes.extend({ id: idSchema });
/** A custom field definition as catalog returns it. */
export type CustomFieldDto = z.infer<typeof customFieldDto>;

const optionList = z.array(z.string().trim().min(1).max(200)).max(200);
/** Fields accepted when defining a custom field. */
export const customFieldCreateAttributes = z
  .object({
    name: z.string().trim().min(1).max(100).meta({ example: 'Change ticket' }),
    description: z.string().max(5000).default(''),
    field_type: customFieldTypeSchema,
    applies_to: customFieldAppliesToSchema.default('all'),
    options: optionList.default([]),
  })
  .meta({ id: 'CustomFieldCreateAttributes' });
/** Fields accepted when changing a custom field (its type is fixed). */
export const customFieldUpdateAttributes = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    description: z.string().max(5000).optional(),
    options: optionList.optional(),
  })
  .meta({ id: 'CustomFieldUpdateAttributes' });

// ── where-used ───────────────────────────────────────────────────────────────────────────────

/** Everything in catalog that references one system parameter (by name). */
export const parameterUsagesSchema = z
  .object({
    name: z.string(),
    integrations: z.array(z.object({ id: idSchema, name: z.string() })),
    tasks: z.array(
      z.object({
        id: idSchema,
        runbook_id: idSchema,
        name: z.string(),
        via: z.array(z.enum(['integration', 'custom_field'])),
      }),
    ),
    custom_field_values: z.array(
      z.object({
        custom_field_id: idSchema,
        subject_type: z.enum(['task', 'runbook']),
        subject_id: idSchema,
        runbook_id: idSchema,
      }),
    ),
    truncated: z.boolean().meta({ description: 'True when a list was cut at its limit (500 entries).' }),
  })
  .meta({ id: 'ParameterUsages' });
/** Where a system parameter is used. */
export type ParameterUsages = z.infer<typeof parameterUsagesSchema>;
