/**
 * `teams.*` procedures: thin — input → service → output. Reads: developer; writes: workspace_manager
 * or global_user_admin (global); `memberships`: service credentials only.
 */
import {
  idSchema,
  pageRequestSchema,
  pageSchema,
  TEAM_MANAGER_ROLES,
  TEAM_MEMBERS_MAX,
  teamCreateAttributes,
  teamDto,
  teamUpdateAttributes,
} from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, internalProcedure, router } from '../trpc.js';
import * as service from './teams.service.js';

const memberIds = z.array(idSchema).max(TEAM_MEMBERS_MAX);

/** Teams and their members. */
export const teamsRouter = router({
  /**
   * Teams by id. Input `{member_id?, page}` (`member_id`: only teams that user belongs to).
   * Output: Page<TeamDto>. Errors: 400 `invalid_cursor`.
   */
  list: authedProcedure
    .input(z.object({ member_id: idSchema.optional(), page: pageRequestSchema }))
    .output(pageSchema(teamDto))
    .query(({ ctx, input }) =>
      service.listTeams(
        ctx.deps,
        { member_id: input.member_id === undefined ? undefined : Number(input.member_id) },
        input.page,
      ),
    ),

  /**
   * Which of the given teams a user belongs to — catalog's check that a user may act on a task
   * assigned to one of their teams. Internal: service credentials only (users read members with
   * `get`). Input `{user_id, team_ids}` (1–100 team ids). Output `{team_ids}`: the subset the user
   * is a member of, ascending; unknown teams and users are members of nothing (no 404).
   */
  memberships: internalProcedure
    .input(z.object({ user_id: idSchema, team_ids: z.array(idSchema).min(1).max(100) }))
    .output(z.object({ team_ids: z.array(idSchema) }))
    .query(async ({ ctx, input }) => ({
      team_ids: await service.teamsOfMember(ctx.deps, Number(input.user_id), input.team_ids.map(Number)),
    })),

  /** One team with its member ids. Input `{id}`. Output: TeamDto. Errors: 404. */
  get: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(teamDto)
    .query(({ ctx, input }) => service.getTeam(ctx.deps, Number(input.id))),

  /**
   * Creates a team. Input `{name, description?, member_ids?}`. Output: TeamDto. Role: workspace_manager or global_user_admin.
   * Errors: 409 `name_taken`; 422 `invalid_member` (`meta.invalid_ids`), `too_many_members`, invalid fields.
   */
  create: authedProcedure
    .meta({ role: TEAM_MANAGER_ROLES })
    .input(teamCreateAttributes.extend({ member_ids: memberIds.default([]) }))
    .output(teamDto)
    .mutation(({ ctx, input }) => service.createTeam(ctx.deps, input)),

  /** Renames or re-describes a team. Input `{id, name?, description?}`. Output: TeamDto. Role: workspace_manager or global_user_admin. Errors: 404, 409 `name_taken`, 422. */
  update: authedProcedure
    .meta({ role: TEAM_MANAGER_ROLES })
    .input(teamUpdateAttributes.extend({ id: idSchema }))
    .output(teamDto)
    .mutation(({ ctx, input }) => service.updateTeam(ctx.deps, Number(input.id), input)),

  /** Deletes a team (not its members). Input `{id}`. Output: nothing. Role: workspace_manager or global_user_admin. Errors: 404. */
  delete: authedProcedure
    .meta({ role: TEAM_MANAGER_ROLES })
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => service.deleteTeam(ctx.deps, Number(input.id))),

  /**
   * Adds users to a team (idempotent). Input `{id, user_ids}`. Output: TeamDto. Role: workspace_manager or global_user_admin.
   * Errors: 404 unknown team; 422 `invalid_member` (`meta.invalid_ids`) or `too_many_members`.
   */
  addMembers: authedProcedure
    .meta({ role: TEAM_MANAGER_ROLES })
    .input(z.object({ id: idSchema, user_ids: memberIds.min(1) }))
    .output(teamDto)
    .mutation(({ ctx, input }) => service.addTeamMembers(ctx.deps, Number(input.id), input.user_ids)),

  /** Removes a user from a team. Input `{id, user_id}`. Output: nothing. Role: workspace_manager or global_user_admin. Errors: 404 (team, or not a member). */
  removeMember: authedProcedure
    .meta({ role: TEAM_MANAGER_ROLES })
    .input(z.object({ id: idSchema, user_id: idSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => service.removeTeamMember(ctx.deps, Number(input.id), Number(input.user_id))),
});
