/** `runbooks.*` procedures: thin — input → service → output. */
import {
  idSchema,
  pageRequestSchema,
  pageSchema,
  runbookCreateAttributes,
  runbookDto,
  runbookStageSchema,
  runbookUpdateAttributes,
  sortSchema,
} from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';
import * as service from './runbooks.service.js';

export const runbooksRouter = router({
  /**
   * Runbooks, filtered by `workspace_id`, `stage` and `is_template`, sorted by `sort` (`name`,
   * `created_at` or `id`, `-` prefix for descending; default `id`; id breaks ties). Input
   * `{..., page: {number?, size?, after?}}`: `after` (the previous page's `next_cursor`) costs the same
   * at any depth; `number` is an offset. Output: Page<RunbookDto>. Errors: 400 `invalid_cursor`.
   */
  list: authedProcedure
    .input(
      z.object({
        workspace_id: idSchema.optional(),
        stage: runbookStageSchema.optional(),
        is_template: z.boolean().optional(),
        sort: sortSchema(['name', 'created_at', 'id'] as const),
        page: pageRequestSchema,
      }),
    )
    .output(pageSchema(runbookDto))
    .query(({ ctx, input }) =>
      service.listRunbooks(
        ctx.deps,
        {
          workspace_id: input.workspace_id === undefined ? undefined : Number(input.workspace_id),
          stage: input.stage,
          is_template: input.is_template,
          sort: input.sort,
        },
        input.page,
      ),
    ),

  /** One runbook. Input `{id}`. Output: RunbookDto. Errors: 404. */
  get: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(runbookDto)
    .query(({ ctx, input }) => service.getRunbook(ctx.deps, Number(input.id))),

  /**
   * Creates a runbook (stage `planning`). Input `{workspace_id, name, description?, is_template?}`.
   * Output: RunbookDto. Role: workspace_manager globally or for the workspace.
   * Errors: 403; 422 `unknown_workspace` (pointer `/data/relationships/workspace`) or invalid fields.
   */
  create: authedProcedure
    .input(runbookCreateAttributes.extend({ workspace_id: idSchema }))
    .output(runbookDto)
    .mutation(({ ctx, input }) =>
      service.createRunbook(ctx.deps, ctx.principal, { ...input, workspace_id: Number(input.workspace_id) }),
    ),

  /**
   * Renames or re-describes a runbook. Input `{id, name?, description?}` (omitted fields are kept).
   * Output: RunbookDto. Role: workspace_manager globally or for its workspace. Errors: 403, 404, 422.
   */
  update: authedProcedure
    .input(runbookUpdateAttributes.extend({ id: idSchema }))
    .output(runbookDto)
    .mutation(({ ctx, input }) => service.updateRunbook(ctx.deps, ctx.principal, Number(input.id), input)),

  /**
   * Deletes a runbook and all its tasks. Input `{id}`. Output: nothing.
   * Role: workspace_manager globally or for its workspace. Errors: 403, 404.
   */
  delete: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => service.deleteRunbook(ctx.deps, ctx.principal, Number(input.id))),
});
