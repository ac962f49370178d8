/** `runbooks.*` procedures: thin — input → service → output. */
import {
  customFieldValuesInput,
  idSchema,
  pageRequestSchema,
  pageSchema,
  runbookActionMeta,
  runbookCreateAttributes,
  runbookDetailDto,
  runbookStageSchema,
  runbookStartMeta,
  runbookUpdateAttributes,
  runEventDto,
  sortSchema,
} from '@runbook/contracts';
import { z } from 'zod';
import { assertVisible, workspaceScope } from '../access.js';
import { listRunEvents } from '../orchestration/events.service.js';
import * as run from '../orchestration/run.service.js';
import { authedProcedure, router } from '../trpc.js';
import * as service from './runbooks.service.js';

export const runbooksRouter = router({
  /**
   * Runbooks of the workspaces visible to the caller, filtered by `workspace_id`, `stage` and `is_template`, sorted by `sort` (`name`,
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
    .output(pageSchema(runbookDetailDto))
    .query(({ ctx, input }) =>
      service.listRunbooks(
        ctx.deps,
        {
          ...workspaceScope(ctx.principal, input.workspace_id === undefined ? undefined : Number(input.workspace_id)),
          stage: input.stage,
          is_template: input.is_template,
          sort: input.sort,
        },
        input.page,
      ),
    ),

  /** One runbook. Input `{id}`. Output: RunbookDto. Errors: 404 (missing or not visible). */
  get: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(runbookDetailDto)
    .query(async ({ ctx, input }) => {
      const runbook = await service.getRunbook(ctx.deps, Number(input.id));
      assertVisible(ctx.principal, Number(runbook.workspace_id), { type: 'runbook', id: input.id });
      return runbook;
    }),

  /**
   * Creates a runbook (stage `planning`). Input `{workspace_id, name, description?, is_template?,
   * custom_field_values?}`.
   * Output: RunbookDto. Role: workspace_manager globally or for the workspace.
   * Errors: 403; 422 `unknown_workspace` (pointer `/data/relationships/workspace`) or invalid fields.
   */
  create: authedProcedure
    .input(
      runbookCreateAttributes.extend({
        workspace_id: idSchema,
        custom_field_values: customFieldValuesInput.optional(),
      }),
    )
    .output(runbookDetailDto)
    .mutation(({ ctx, input }) =>
      service.createRunbook(ctx.deps, ctx.principal, { ...input, workspace_id: Number(input.workspace_id) }),
    ),

  /**
   * Renames or re-describes a runbook, or sets custom field values. Input `{id, name?, description?,
   * custom_field_values?}` (omitted fields are kept; a value entry with `value: null` removes it).
   * Output: RunbookDto. Role: workspace_manager globally or for its workspace. Errors: 403, 404, 422.
   */
  update: authedProcedure
    .input(runbookUpdateAttributes.extend({ id: idSchema, custom_field_values: customFieldValuesInput.optional() }))
    .output(runbookDetailDto)
    .mutation(({ ctx, input }) => service.updateRunbook(ctx.deps, ctx.principal, Number(input.id), input)),

  /**
   * Deletes a runbook and all its tasks. Input `{id}`. Output: nothing.
   * Role: workspace_manager globally or for its workspace. Errors: 403, 404.
   */
  delete: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => service.deleteRunbook(ctx.deps, ctx.principal, Number(input.id))),

  /**
   * Starts a run: `planning → active`; every task back to `not_startable`, root tasks `startable`,
   * auto-start ones started. Input `{id, run_type? (live|rehearsal, default live)}`. Output: RunbookDetailDto.
   * Role: workspace_manager globally or for its workspace. Errors: 403, 404, 422 `invalid_transition`.
   */
  start: authedProcedure
    .input(runbookStartMeta.extend({ id: idSchema }))
    .output(runbookDetailDto)
    .mutation(async ({ ctx, input }) => {
      await run.startRunbook(ctx.deps, ctx.principal, Number(input.id), input.run_type);
      return service.getRunbook(ctx.deps, Number(input.id));
    }),

  /** `active → paused` (nothing starts until resume). Input `{id, message?}`. Output: RunbookDetailDto. Role and errors: as start. */
  pause: authedProcedure
    .input(runbookActionMeta.extend({ id: idSchema }))
    .output(runbookDetailDto)
    .mutation(async ({ ctx, input }) => {
      await run.pauseRunbook(ctx.deps, ctx.principal, Number(input.id), input.message ?? null);
      return service.getRunbook(ctx.deps, Number(input.id));
    }),

  /** `paused → active` (waiting auto starts and executions proceed). Input `{id, message?}`. Output: RunbookDetailDto. Role and errors: as start. */
  resume: authedProcedure
    .input(runbookActionMeta.extend({ id: idSchema }))
    .output(runbookDetailDto)
    .mutation(async ({ ctx, input }) => {
      await run.resumeRunbook(ctx.deps, ctx.principal, Number(input.id), input.message ?? null);
      return service.getRunbook(ctx.deps, Number(input.id));
    }),

  /** `active | paused → canceled` (waiting executions canceled). Input `{id, message?}`. Output: RunbookDetailDto. Role and errors: as start. */
  cancel: authedProcedure
    .input(runbookActionMeta.extend({ id: idSchema }))
    .output(runbookDetailDto)
    .mutation(async ({ ctx, input }) => {
      await run.cancelRunbook(ctx.deps, ctx.principal, Number(input.id), input.message ?? null);
      return service.getRunbook(ctx.deps, Number(input.id));
    }),

  /**
   * The stage-change log of a runbook and its tasks (who, when), oldest first. Input `{id, task_id?,
   * page}`. Output: Page<RunEventDto>. Errors: 404, 400 `invalid_cursor`.
   */
  events: authedProcedure
    .input(z.object({ id: idSchema, task_id: idSchema.optional(), page: pageRequestSchema }))
    .output(pageSchema(runEventDto))
    .query(({ ctx, input }) =>
      listRunEvents(
        ctx.deps,
        ctx.principal,
        Number(input.id),
        input.task_id === undefined ? undefined : Number(input.task_id),
        input.page,
      ),
    ),
});
