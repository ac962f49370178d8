/** `workspaces.*` procedures: thin — input → service → output. */
import { idSchema, pageRequestSchema, pageSchema, workspaceCreateAttributes, workspaceDto } from '@runbook/contracts';
import { z } from 'zod';
import { assertVisible, visibleWorkspaces } from '../access.js';
import { authedProcedure, router } from '../trpc.js';
import * as service from './workspaces.service.js';

export const workspacesRouter = router({
  /**
   * Workspaces visible to the caller, ordered by id. Input `{page: {number?, size?, after?}}` (`after` is `next_cursor` of the
   * previous page). Output: Page<WorkspaceDto>. Errors: 400 `invalid_cursor`.
   */
  list: authedProcedure
    .input(z.object({ page: pageRequestSchema }))
    .output(pageSchema(workspaceDto))
    .query(({ ctx, input }) => service.listWorkspaces(ctx.deps, input.page, visibleWorkspaces(ctx.principal))),

  /** One workspace. Input `{id}`. Output: WorkspaceDto. Errors: 404 (missing or not visible). */
  get: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(workspaceDto)
    .query(({ ctx, input }) => {
      assertVisible(ctx.principal, Number(input.id), { type: 'workspace', id: input.id });
      return service.getWorkspace(ctx.deps, Number(input.id));
    }),

  /**
   * Creates a workspace. Input `{name, key?, description}` (key: 2–10 upper-case letters/digits, unique).
   * Output: WorkspaceDto. Role: workspace_manager (global). Errors: 403, 409 `key_taken`, 422 invalid fields.
   */
  create: authedProcedure
    .meta({ role: 'workspace_manager' })
    .input(workspaceCreateAttributes)
    .output(workspaceDto)
    .mutation(({ ctx, input }) => service.createWorkspace(ctx.deps, input)),
});
