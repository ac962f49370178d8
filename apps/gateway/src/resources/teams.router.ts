/**
 * REST `/core/teams`: teams of users (instance-wide), assignable to tasks. Members are listed in the
 * team's `relationships.members` and changed through `/core/teams/{id}/members`.
 */
import {
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  resourceSchema,
  singleDocument,
  strictBody,
  TEAM_MANAGER_ROLES,
  TEAM_MEMBERS_MAX,
  type TeamDto,
  teamAttributes,
  teamCreateAttributes,
  teamUpdateAttributes,
  toMany,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, many, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

/** A team resource: attributes and `relationships.members` (users). */
export const teamResource = resourceSchema('team', teamAttributes, z.object({ members: toMany('user') })).meta({
  id: 'Team',
});

const toResource = ({ id, member_ids, ...attributes }: TeamDto) => ({
  id,
  type: 'team' as const,
  attributes,
  relationships: { members: many('user', member_ids) },
});

const userRefs = z
  .array(z.object({ id: idSchema, type: z.literal('user') }))
  .max(TEAM_MEMBERS_MAX)
  .meta({ description: `Users, as \`{"id", "type": "user"}\` (at most ${TEAM_MEMBERS_MAX}).` });

/** `/core/teams` and `/core/teams/{id}/members`. */
export const teamsRouter = router({
  /** List Teams by id; `user_id` keeps the teams that user belongs to. Pagination as List Runbooks. Role: developer. */
  list: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/teams', tags: ['teams'], summary: 'List Teams' } })
    .input(z.object({ user_id: idSchema.optional(), ...pageQueryShape }))
    .output(listDocumentSchema(teamResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.identity.teams.list.query(
        { ...(input.user_id ? { member_id: input.user_id } : {}), page: pageRequestOf(input) },
        ctx.forward,
      );
      return listDocument(ctx.deps.publicUrl, '/core/teams', { user_id: input.user_id }, input, page, toResource);
    }),

  /** Get a Team with its members. Errors: 404. Role: developer. */
  get: forwardingProcedure
    .meta({ openapi: { method: 'GET', path: '/core/teams/{id}', tags: ['teams'], summary: 'Get a Team' } })
    .input(z.object({ id: idSchema }))
    .output(singleDocument(teamResource))
    .query(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.identity.teams.get.query(input, ctx.forward)),
    })),

  /**
   * Create a Team: `{"data": {"type": "team", "attributes": {name, description?}, "relationships":
   * {"members": {"data": [{"id", "type": "user"}]}}?}}`. Role: workspace_manager or global_user_admin.
   * Errors: 409 `name_taken`; 422 `invalid_member` (unknown or archived users, `meta.invalid_ids`), invalid fields.
   */
  create: forwardingProcedure
    .meta({
      role: TEAM_MANAGER_ROLES,
      status: 201,
      openapi: { method: 'POST', path: '/core/teams', tags: ['teams'], summary: 'Create a Team' },
    })
    .input(
      z.object({
        data: strictBody(
          writeDocument('team', teamCreateAttributes, z.object({ members: z.object({ data: userRefs }) }).optional()),
        ),
      }),
    )
    .output(singleDocument(teamResource))
    .mutation(async ({ ctx, input }) => {
      const { attributes, relationships } = input.data;
      const dto = await ctx.deps.identity.teams.create.mutate(
        { ...attributes, member_ids: relationships?.members.data.map((m) => m.id) ?? [] },
        ctx.forward,
      );
      return { data: toResource(dto) };
    }),

  /** Update a Team's name or description. Role: workspace_manager or global_user_admin. Errors: 404, 409 `name_taken`, 422. */
  update: forwardingProcedure
    .meta({
      role: TEAM_MANAGER_ROLES,
      openapi: { method: 'PATCH', path: '/core/teams/{id}', tags: ['teams'], summary: 'Update a Team' },
    })
    .input(z.object({ id: idSchema, data: strictBody(writeDocument('team', teamUpdateAttributes)) }))
    .output(singleDocument(teamResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.identity.teams.update.mutate({ id: input.id, ...input.data.attributes }, ctx.forward),
      ),
    })),

  /** Delete a Team (its members stay users); 204. Role: workspace_manager or global_user_admin. Errors: 404. */
  delete: forwardingProcedure
    .meta({
      role: TEAM_MANAGER_ROLES,
      status: 204,
      openapi: { method: 'DELETE', path: '/core/teams/{id}', tags: ['teams'], summary: 'Delete a Team' },
    })
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.identity.teams.delete.mutate(input, ctx.forward);
    }),

  /**
   * Add Team Members: `{"data": [{"id", "type": "user"}, …]}`; users already in the team are kept
   * (idempotent). Returns the team. Role: workspace_manager or global_user_admin.
   * Errors: 404 unknown team; 422 `invalid_member` (`meta.invalid_ids`), `too_many_members`.
   */
  addMembers: forwardingProcedure
    .meta({
      role: TEAM_MANAGER_ROLES,
      openapi: { method: 'POST', path: '/core/teams/{id}/members', tags: ['teams'], summary: 'Add Team Members' },
    })
    .input(z.object({ id: idSchema, data: strictBody(userRefs.min(1)) }))
    .output(singleDocument(teamResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.identity.teams.addMembers.mutate(
          { id: input.id, user_ids: input.data.map((m) => m.id) },
          ctx.forward,
        ),
      ),
    })),

  /** Remove a Team Member; 204. Role: workspace_manager or global_user_admin. Errors: 404 (unknown team, or the user is not a member). */
  removeMember: forwardingProcedure
    .meta({
      role: TEAM_MANAGER_ROLES,
      status: 204,
      openapi: {
        method: 'DELETE',
        path: '/core/teams/{id}/members/{user_id}',
        tags: ['teams'],
        summary: 'Remove a Team Member',
      },
    })
    .input(z.object({ id: idSchema, user_id: idSchema }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.identity.teams.removeMember.mutate(input, ctx.forward);
    }),
});
