/** `users.*` procedures: thin — input → service → output. */
import { forbidden, idSchema, pageRequestSchema, pageSchema, roleAssignmentSchema, userDto } from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';
import * as service from './users.service.js';

const userCreateInput = z.object({
  first_name: z.string().trim().min(1).max(100),
  last_name: z.string().trim().min(1).max(100),
  email: z.email().max(254),
  roles: z.array(roleAssignmentSchema).max(50).default([]),
});

export const usersRouter = router({
  /** The calling user. Input: none. Output: UserDto. Errors: 401, 403 (no developer role; services get 403 too). */
  me: authedProcedure.output(userDto).query(({ ctx }) => {
    if (ctx.principal.kind !== 'user') throw forbidden('users.me needs a user token.');
    return service.getUser(ctx.deps, Number(ctx.principal.user_id));
  }),

  /** One user by id. Output: UserDto. Errors: 404 unknown id. */
  get: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(userDto)
    .query(({ ctx, input }) => service.getUser(ctx.deps, Number(input.id))),

  /** Users, filtered by `query` (substring of name or email) and `archived`, paginated by id. */
  list: authedProcedure
    .input(
      z.object({ query: z.string().max(200).optional(), archived: z.boolean().optional(), page: pageRequestSchema }),
    )
    .output(pageSchema(userDto))
    .query(({ ctx, input }) => service.listUsers(ctx.deps, input, input.page)),

  /** Creates a user. Role: global_user_admin. Errors: 409 `email_taken`, 422 invalid fields. */
  create: authedProcedure
    .meta({ role: 'global_user_admin' })
    .input(userCreateInput)
    .output(userDto)
    .mutation(({ ctx, input }) => service.createUser(ctx.deps, input)),

  /** Replaces a user's role assignments. Role: global_user_admin. Takes effect at once. */
  setRoles: authedProcedure
    .meta({ role: 'global_user_admin' })
    .input(z.object({ id: idSchema, roles: z.array(roleAssignmentSchema).max(50) }))
    .output(userDto)
    .mutation(({ ctx, input }) => service.setRoles(ctx.deps, Number(input.id), input.roles)),

  /** Archives a user; their tokens stop working at once. Role: global_user_admin. */
  archive: authedProcedure
    .meta({ role: 'global_user_admin' })
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => service.archiveUser(ctx.deps, Number(input.id))),
});
