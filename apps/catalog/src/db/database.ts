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
  created_at: number;
  updated_at: number;
}

/** `task_id` waits for `predecessor_id`; both tasks belong to the same runbook. */
export interface TaskPredecessorTable {
  task_id: number;
  predecessor_id: number;
}

export interface Database {
  workspaces: WorkspaceTable;
  runbooks: RunbookTable;
  tasks: TaskTable;
  task_predecessors: TaskPredecessorTable;
}

export type WorkspaceRow = Selectable<WorkspaceTable>;
export type NewWorkspaceRow = Insertable<WorkspaceTable>;
export type RunbookRow = Selectable<RunbookTable>;
export type NewRunbookRow = Insertable<RunbookTable>;
export type RunbookUpdate = Updateable<RunbookTable>;
export type TaskRow = Selectable<TaskTable>;
export type NewTaskRow = Insertable<TaskTable>;
export type TaskUpdate = Updateable<TaskTable>;
