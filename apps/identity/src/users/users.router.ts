/** `users.*` procedures: thin — input → access check → service → output. */
import {
  forbidden,
  idSchema,
  pageRequestSchema,
  pageSchema,
  roleAssignmentSchema,
  userDto,
  userUpdateAttributes,
} from '@runbook/contracts';
import { z } from 'zod';
import { actorOf, assertCanUpdateUser, assertSelfOrUserAdmin } from '../access.js';
import { PASSWORD_MAX_LENGTH } from '../auth/passwords.js';
import { setPassword } from '../sessions/sessions.service.js';
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

  /** Users, filtered by `query` (substring of name or email) and `archived`, paginated by id. Errors: 400 `invalid_cursor`. */
  list: authedProcedure
    .input(
      z.object({ query: z.string().max(200).optional(), archived: z.boolean().optional(), page: pageRequestSchema }),
    )
    .output(pageSchema(userDto))
    .query(({ ctx, input }) => service.listUsers(ctx.deps, input, input.page)),

  /**
   * Creates a user. Input `{first_name, last_name, email, roles}`. Output: UserDto. Role: global_user_admin.
   * Errors: 409 `email_taken`, 422 invalid fields or `role_not_scopable`.
   */
  create: authedProcedure
    .meta({ role: 'global_user_admin' })
    .input(userCreateInput)
    .output(userDto)
    .mutation(({ ctx, input }) => service.createUser(ctx.deps, actorOf(ctx.principal), input)),

  /**
   * Changes a user: `first_name`/`last_name` (the user themselves or global_user_admin), `email` and
   * `roles` (global_user_admin; `roles` replaces every assignment and takes effect at once).
   * Input `{id, ...}`. Output: UserDto. Errors: 403, 404, 409 `email_taken` or `last_user_admin`,
   * 422 invalid fields or `role_not_scopable`.
   */
  update: authedProcedure
    .input(userUpdateAttributes.extend({ id: idSchema }))
    .output(userDto)
    .mutation(({ ctx, input }) => {
      const { id, ...changes } = input;
      assertCanUpdateUser(ctx.principal, Number(id), changes);
      return service.updateUser(ctx.deps, actorOf(ctx.principal), Number(id), changes);
    }),

  /**
   * Archives a user (idempotent); their tokens stop working at once. Input `{id}`. Output: nothing.
   * Role: global_user_admin. Errors: 404, 409 `last_user_admin`.
   */
  archive: authedProcedure
    .meta({ role: 'global_user_admin' })
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => service.archiveUser(ctx.deps, actorOf(ctx.principal), Number(input.id))),

  /**
   * Sets a user's web sign-in password. Users set their own (giving `current_password` when they
   * have one); a global_user_admin sets anyone's without it. Other web sessions of the user are
   * revoked. Input `{id, password, current_password?}`. Errors: 403, 404, 422 `password_too_short`,
   * `current_password_incorrect`.
   */
  setPassword: authedProcedure
    .input(
      z.object({
        id: idSchema,
        password: z.string().max(PASSWORD_MAX_LENGTH),
        current_password: z.string().max(PASSWORD_MAX_LENGTH).optional(),
      }),
    )
    .output(z.void())
    .mutation(({ ctx, input }) => {
      const userId = Number(input.id);
      assertSelfOrUserAdmin(ctx.principal, userId);
      const self = ctx.principal.kind === 'user' && ctx.principal.user_id === input.id;
      return setPassword(ctx.deps, actorOf(ctx.principal), userId, input, self, ctx.credential);
    }),
});
