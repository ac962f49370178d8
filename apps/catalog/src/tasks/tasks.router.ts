/** `tasks.*` procedures (always addressed through their runbook): thin — input → service → output. */
import {
  idSchema,
  pageRequestSchema,
  pageSchema,
  taskCreateAttributes,
  taskDto,
  taskStageSchema,
  taskUpdateAttributes,
} from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';
import * as service from './tasks.service.js';

/** Ids of tasks of the same runbook this task waits for. */
const predecessorIds = z.array(idSchema).max(1000);
const taskRef = z.object({ runbook_id: idSchema, id: idSchema });

export const tasksRouter = router({
  /**
   * A runbook's tasks by id, each with `predecessor_ids`. Input `{runbook_id, stage?, page: {number?,
   * size?, after?}}`. Output: Page<TaskDto>. Errors: 404 unknown runbook, 400 `invalid_cursor`.
   */
  list: authedProcedure
    .input(z.object({ runbook_id: idSchema, stage: taskStageSchema.optional(), page: pageRequestSchema }))
    .output(pageSchema(taskDto))
    .query(({ ctx, input }) =>
      service.listTasks(ctx.deps, Number(input.runbook_id), { stage: input.stage }, input.page),
    ),

  /** One task. Input `{runbook_id, id}`. Output: TaskDto. Errors: 404 when the runbook has no such task. */
  get: authedProcedure
    .input(taskRef)
    .output(taskDto)
    .query(({ ctx, input }) => service.getTask(ctx.deps, Number(input.runbook_id), Number(input.id))),

  /**
   * Creates a task (stage `not_startable`). Input `{runbook_id, name, description?, duration? (seconds),
   * auto_start?, auto_finish?, predecessor_ids? (default [])}`. Output: TaskDto. Role: workspace_manager
   * globally or for the runbook's workspace. Errors: 403; 404 unknown runbook; 422 invalid fields or
   * `invalid_predecessor` (`meta.invalid_ids`: not tasks of this runbook).
   */
  create: authedProcedure
    .input(taskCreateAttributes.extend({ runbook_id: idSchema, predecessor_ids: predecessorIds.default([]) }))
    .output(taskDto)
    .mutation(({ ctx, input }) => service.createTask(ctx.deps, ctx.principal, Number(input.runbook_id), input)),

  /**
   * Changes the given fields of a task. Input `{runbook_id, id, name?, description?, duration? (seconds),
   * auto_start?, auto_finish?, predecessor_ids?}`; `predecessor_ids` replaces the predecessors. Output:
   * TaskDto. Role: workspace_manager globally or for the runbook's workspace. Errors: 403; 404; 422
   * invalid fields, `invalid_predecessor`, or `predecessor_cycle` (`meta.cycle`: the task ids of the
   * cycle, each waiting for the next); nothing is written on error.
   */
  update: authedProcedure
    .input(
      taskUpdateAttributes.extend({ runbook_id: idSchema, id: idSchema, predecessor_ids: predecessorIds.optional() }),
    )
    .output(taskDto)
    .mutation(({ ctx, input }) =>
      service.updateTask(ctx.deps, ctx.principal, Number(input.runbook_id), Number(input.id), input),
    ),

  /**
   * Deletes a task; its successors stop waiting for it. Input `{runbook_id, id}`. Output: nothing.
   * Role: workspace_manager globally or for the runbook's workspace. Errors: 403, 404.
   */
  delete: authedProcedure
    .input(taskRef)
    .output(z.void())
    .mutation(({ ctx, input }) =>
      service.deleteTask(ctx.deps, ctx.principal, Number(input.runbook_id), Number(input.id)),
    ),
});
