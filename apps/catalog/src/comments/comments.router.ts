/** `comments.*` procedures: thin — input → service → output. */
import { commentCreateAttributes, commentDto, idSchema, pageRequestSchema, pageSchema } from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';
import * as service from './comments.service.js';

const subject = z.object({ runbook_id: idSchema, task_id: idSchema.optional() });
const taskIdOf = (input: { task_id?: string | undefined }) =>
  input.task_id === undefined ? undefined : Number(input.task_id);

/** `comments.{list,create}`. */
export const commentsRouter = router({
  /**
   * Comments of a runbook (all, its tasks' included) or of one task (`task_id`), oldest first.
   * Input `{runbook_id, task_id?, page}`. Output: Page<CommentDto>. Errors: 404, 400 `invalid_cursor`.
   */
  list: authedProcedure
    .input(subject.extend({ page: pageRequestSchema }))
    .output(pageSchema(commentDto))
    .query(({ ctx, input }) =>
      service.listComments(ctx.deps, ctx.principal, Number(input.runbook_id), taskIdOf(input), input.page),
    ),

  /** Adds a comment. Input `{runbook_id, task_id?, body}`. Output: CommentDto. Errors: 404, 422. */
  create: authedProcedure
    .input(subject.extend(commentCreateAttributes.shape))
    .output(commentDto)
    .mutation(({ ctx, input }) =>
      service.createComment(ctx.deps, ctx.principal, Number(input.runbook_id), taskIdOf(input), input.body),
    ),
});
