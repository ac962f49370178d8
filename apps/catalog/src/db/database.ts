/** Catalog's database schema (Kysely). Timestamps are epoch milliseconds; booleans 0/1; ids integers. */
import type { RunbookDto, TaskDto } from '@runbook/contracts';
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** A column the database fills by default on insert. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export interface WorkspaceTable {
  id: Generated<number>;
  name: string;
  /** Short unique code (e.g. `PAY`), or null. */
  key: string | null;
  description: string;
  created_at: number;
  updated_at: number;
}

export interface RunbookTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  description: string;
  stage: Defaulted<RunbookDto['stage']>;
  run_type: RunbookDto['run_type'];
  is_template: number;
  /** JSON array of `{custom_field_id, value}`, or null for none. */
  custom_field_values: string | null;
  /** Tasks not yet complete during a run (0 outside runs); the run completes when it reaches 0. */
  tasks_remaining: Defaulted<number>;
  created_at: number;
  updated_at: number;
}

export interface TaskTable {
  id: Generated<number>;
  runbook_id: number;
  name: string;
  description: string;
  stage: Defaulted<TaskDto['stage']>;
  completion_type: TaskDto['completion_type'];
  /** Planned duration in seconds. */
  duration: number;
  auto_start: number;
  auto_finish: number;
  start_actual: number | null;
  end_actual: number | null;
  start_planned: number | null;
  end_planned: number | null;
  /** The integration an integration task runs; null for manual tasks. */
  integration_id: number | null;
  /** Predecessors not yet complete during a run; the task becomes startable at 0. */
  pending_predecessors: Defaulted<number>;
  execution_status: 'queued' | 'retrying' | 'failed' | 'succeeded' | null;
  last_error: string | null;
  /** JSON array of `{custom_field_id, value}`, or null for none. */
  custom_field_values: string | null;
  /** JSON array of `{type: 'user' | 'team', id}`, or null for none. */
  assignees: string | null;
  created_at: number;
  updated_at: number;
}

/** `task_id` waits for `predecessor_id`; both tasks belong to the same runbook. */
export interface TaskPredecessorTable {
  task_id: number;
  predecessor_id: number;
}

export interface IntegrationTable {
  id: Generated<number>;
  name: string;
  description: string;
  method: string;
  url_template: string;
  /** JSON array of `{name, value}` (value templates). */
  headers: string;
  body_template: string | null;
  timeout_ms: number;
  /** JSON array of statuses; `[]` means any 2xx. */
  success_statuses: string;
  created_at: number;
  updated_at: number;
}

export interface CustomFieldTable {
  id: Generated<number>;
  name: string;
  description: string;
  field_type: string;
  applies_to: string;
  /** JSON array of a select field's allowed values. */
  options: string;
  created_at: number;
  updated_at: number;
}

/** Where-used index: a system parameter `name` referenced by an integration or a custom field value of a task or runbook. */
export interface ParameterReferenceTable {
  id: Generated<number>;
  name: string;
  integration_id: number | null;
  task_id: number | null;
  runbook_id: number | null;
  custom_field_id: number | null;
}

export interface CommentTable {
  id: Generated<number>;
  runbook_id: number;
  task_id: number | null;
  author_type: string;
  author_id: string | null;
  body: string;
  created_at: number;
}

export interface RunEventTable {
  id: Generated<number>;
  runbook_id: number;
  task_id: number | null;
  kind: string;
  from_stage: string | null;
  to_stage: string | null;
  completion_type: string | null;
  run_type: string | null;
  actor_type: string;
  actor_id: string | null;
  message: string | null;
  created_at: number;
}

/** Job states: `queued` (claimable once `available_at` passed), `parked` (runbook paused), `done`, `failed`, `canceled`. */
export type JobState = 'queued' | 'parked' | 'done' | 'failed' | 'canceled';

export interface JobTable {
  id: Generated<number>;
  kind: string;
  runbook_id: number;
  task_id: number | null;
  /** JSON object, per kind. */
  payload: string;
  state: JobState;
  /** Epoch ms: not before (queued), or the lease's end while claimed. */
  available_at: number;
  attempts: Defaulted<number>;
  idempotency_key: string;
  claimed_by: string | null;
  lease_token: string | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface TaskExecutionTable {
  id: Generated<number>;
  task_id: number;
  runbook_id: number;
  integration_id: number | null;
  job_id: number;
  attempt: number;
  idempotency_key: string;
  outcome: 'in_flight' | 'succeeded' | 'failed' | 'interrupted';
  sent: number;
  request_line: string;
  /** JSON array of `{name, value}`, secrets masked. */
  request_headers: string;
  request_body: string | null;
  response_status: number | null;
  response_excerpt: string | null;
  duration_ms: number | null;
  error_code: string | null;
  error_detail: string | null;
  started_at: number;
  finished_at: number | null;
}

export interface Database {
  workspaces: WorkspaceTable;
  runbooks: RunbookTable;
  tasks: TaskTable;
  task_predecessors: TaskPredecessorTable;
  integrations: IntegrationTable;
  custom_fields: CustomFieldTable;
  parameter_references: ParameterReferenceTable;
  comments: CommentTable;
  run_events: RunEventTable;
  jobs: JobTable;
  task_executions: TaskExecutionTable;
}

export type WorkspaceRow = Selectable<WorkspaceTable>;
export type NewWorkspaceRow = Insertable<WorkspaceTable>;
export type RunbookRow = Selectable<RunbookTable>;
export type NewRunbookRow = Insertable<RunbookTable>;
export type RunbookUpdate = Updateable<RunbookTable>;
export type TaskRow = Selectable<TaskTable>;
export type NewTaskRow = Insertable<TaskTable>;
export type TaskUpdate = Updateable<TaskTable>;
export type IntegrationRow = Selectable<IntegrationTable>;
export type CustomFieldRow = Selectable<CustomFieldTable>;
export type CommentRow = Selectable<CommentTable>;
export type RunEventRow = Selectable<RunEventTable>;
export type NewRunEventRow = Insertable<RunEventTable>;
export type JobRow = Selectable<JobTable>;
export type NewJobRow = Insertable<JobTable>;
export type TaskExecutionRow = Selectable<TaskExecutionTable>;
