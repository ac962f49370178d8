/** `tasks.*` procedures (always addressed through their runbook): thin — input → service → output. */
import {
  assigneeSchema,
  completionTypeSchema,
  customFieldValuesInput,
  executionDto,
  idSchema,
  pageRequestSchema,
  pageSchema,
  sortSchema,
  taskCreateAttributes,
  taskDetailDto,
  taskPlanningAttributes,
  taskSkipMeta,
  taskSortFields,
  taskStageSchema,
  taskUpdateAttributes,
} from '@runbook/contracts';
import { z } from 'zod';
import { assertRunbookVisible } from '../access.js';
import { listExecutions } from '../orchestration/executions.service.js';
import * as run from '../orchestration/run.service.js';
import { authedProcedure, router } from '../trpc.js';
import * as service from './tasks.service.js';

/** Ids of tasks of the same runbook this task waits for. */
const predecessorIds = z.array(idSchema).max(1000);
const assignees = z.array(assigneeSchema).max(100);
const taskRef = z.object({ runbook_id: idSchema, id: idSchema });

export const tasksRouter = router({
  /**
   * A runbook's tasks, each with `predecessor_ids` and `successor_ids`. Input `{runbook_id, stage?,
   * completion_type?, search_term? (case-insensitive substring of the name), sort? (id|name|created_at,
   * `-` for descending), page: {number?, size?, after?}}`. Output: Page<TaskDetailDto>.
   * Errors: 404 unknown runbook, 400 `invalid_cursor`.
   */
  list: authedProcedure
    .input(
      z.object({
        runbook_id: idSchema,
        stage: taskStageSchema.optional(),
        completion_type: completionTypeSchema.optional(),
        search_term: z.string().trim().min(1).max(200).optional(),
        sort: sortSchema(taskSortFields),
        page: pageRequestSchema,
      }),
    )
    .output(pageSchema(taskDetailDto))
    .query(async ({ ctx, input }) => {
      await assertRunbookVisible(ctx.deps, ctx.principal, Number(input.runbook_id));
      return service.listTasks(
        ctx.deps,
        Number(input.runbook_id),
        {
          stage: input.stage,
          completion_type: input.completion_type,
          search_term: input.search_term,
          sort: input.sort,
        },
        input.page,
      );
    }),

  /** One task. Input `{runbook_id, id}`. Output: TaskDetailDto. Errors: 404 when the runbook has no such task or is not visible. */
  get: authedProcedure
    .input(taskRef)
    .output(taskDetailDto)
    .query(async ({ ctx, input }) => {
      await assertRunbookVisible(ctx.deps, ctx.principal, Number(input.runbook_id));
      return service.getTask(ctx.deps, Number(input.runbook_id), Number(input.id));
    }),

  /**
   * Creates a task (stage `not_startable`; the runbook must be in planning). Input `{runbook_id, name,
   * description?, duration? (seconds), auto_start?, auto_finish?, start_planned?, end_planned?,
   * custom_field_values?, predecessor_ids? (default []), assignees?, integration_id?}`. Output:
   * TaskDetailDto. Role: workspace_manager globally or for the runbook's workspace. Errors: 403; 404
   * unknown runbook; 422 invalid fields, `runbook_not_editable`, `invalid_predecessor`
   * (`meta.invalid_ids`), `unknown_integration`, `invalid_assignees` (`meta.invalid`), custom field
   * value codes; 503 `secrets_unavailable`, `identity_unavailable`.
   */
  create: authedProcedure
    .input(
      taskCreateAttributes.extend({
        ...taskPlanningAttributes.shape,
        runbook_id: idSchema,
        predecessor_ids: predecessorIds.default([]),
        assignees: assignees.optional(),
        integration_id: idSchema.nullable().optional(),
      }),
    )
    .output(taskDetailDto)
    .mutation(({ ctx, input }) => service.createTask(ctx.deps, ctx.principal, Number(input.runbook_id), input)),

  /**
   * Changes the given fields of a task. Input `{runbook_id, id, name?, description?, duration?,
   * auto_start?, auto_finish?, start_planned?, end_planned?, custom_field_values? (entries set one
   * field; value null removes it), predecessor_ids? (replaces; planning only), assignees? (replaces),
   * integration_id? (null: manual task)}`. Output: TaskDetailDto. Role: workspace_manager globally or
   * for the runbook's workspace. Errors: 403; 404; 422 invalid fields, `runbook_not_editable`,
   * `invalid_predecessor`, `predecessor_cycle` (`meta.cycle`), `unknown_integration`,
   * `invalid_assignees`, custom field value codes; nothing is written on error.
   */
  update: authedProcedure
    .input(
      taskUpdateAttributes.extend({
        ...taskPlanningAttributes.shape,
        runbook_id: idSchema,
        id: idSchema,
        predecessor_ids: predecessorIds.optional(),
        assignees: assignees.optional(),
        integration_id: idSchema.nullable().optional(),
        custom_field_values: customFieldValuesInput.optional(),
      }),
    )
    .output(taskDetailDto)
    .mutation(({ ctx, input }) =>
      service.updateTask(ctx.deps, ctx.principal, Number(input.runbook_id), Number(input.id), input),
    ),

  /**
   * Deletes a task (runbook in planning); its successors stop waiting for it. Input `{runbook_id, id}`.
   * Role: workspace_manager globally or for the runbook's workspace. Errors: 403, 404, 422 `runbook_not_editable`.
   */
  delete: authedProcedure
    .input(taskRef)
    .output(z.void())
    .mutation(({ ctx, input }) =>
      service.deleteTask(ctx.deps, ctx.principal, Number(input.runbook_id), Number(input.id)),
    ),

  /**
   * Starts a startable task (an integration task's request is then sent by the worker); on an
   * integration task whose execution failed, retries it. Input `{runbook_id, id}`. Output: TaskDetailDto.
   * Who: a workspace_manager (globally or of the runbook's workspace), or a user the task is
   * assigned to directly or through one of its teams (asked of identity; see run.service `onTask`).
   * Errors: 403; 404 (also for a runbook in a workspace the user cannot see); 422 `runbook_not_active`,
   * `predecessors_incomplete` (`meta.incomplete_predecessor_ids`), `invalid_transition` (`meta.stage`);
   * 503 `identity_unavailable` when team membership cannot be checked.
   */
  start: authedProcedure
    .input(taskRef)
    .output(taskDetailDto)
    .mutation(async ({ ctx, input }) => {
      await run.startTask(ctx.deps, ctx.principal, Number(input.runbook_id), Number(input.id));
      return service.getTask(ctx.deps, Number(input.runbook_id), Number(input.id));
    }),

  /**
   * Finishes a task in progress (`complete_normal`); successors whose predecessors are all complete
   * become startable. Input `{runbook_id, id}`. Output: TaskDetailDto. Who: as start.
   * Errors: 403; 404; 422 `runbook_not_active`, `invalid_transition`.
   */
  finish: authedProcedure
    .input(taskRef)
    .output(taskDetailDto)
    .mutation(async ({ ctx, input }) => {
      await run.finishTask(ctx.deps, ctx.principal, Number(input.runbook_id), Number(input.id));
      return service.getTask(ctx.deps, Number(input.runbook_id), Number(input.id));
    }),

  /**
   * Skips a task that is not complete (`complete_skipped`); the comment is recorded on the task.
   * Input `{runbook_id, id, comment}` (required). Output: TaskDetailDto. Who: as start.
   * Errors: 403; 404; 422 invalid fields (`/comment`), `runbook_not_active`, `invalid_transition`.
   */
  skip: authedProcedure
    .input(taskRef.extend(taskSkipMeta.shape))
    .output(taskDetailDto)
    .mutation(async ({ ctx, input }) => {
      await run.skipTask(ctx.deps, ctx.principal, Number(input.runbook_id), Number(input.id), input.comment);
      return service.getTask(ctx.deps, Number(input.runbook_id), Number(input.id));
    }),

  /**
   * Executions of an integration task, oldest first (request line and headers, status, duration,
   * response excerpt — secrets masked). Input `{runbook_id, id, page}`. Output: Page<ExecutionDto>.
   * Errors: 404, 400 `invalid_cursor`.
   */
  executions: authedProcedure
    .input(taskRef.extend({ page: pageRequestSchema }))
    .output(pageSchema(executionDto))
    .query(({ ctx, input }) =>
      listExecutions(ctx.deps, ctx.principal, Number(input.runbook_id), Number(input.id), input.page),
    ),
});
