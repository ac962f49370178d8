/** `userAppTokens.*` procedures. Users manage their own tokens; global_user_admin manages anyone's. */
import { idSchema, principalSchema, timestampSchema, userAppTokenDto } from '@runbook/contracts';
import { z } from 'zod';
import { actorOf, assertSelfOrUserAdmin } from '../access.js';
import { authenticate } from '../auth/authenticate.js';
import { authedProcedure, internalProcedure, router } from '../trpc.js';
import * as service from './tokens.service.js';

export const userAppTokensRouter = router({
  /** Tokens of `user_id` (newest first; the plaintext is never included). Errors: 403 not self/admin, 404. */
  list: authedProcedure
    .input(z.object({ user_id: idSchema }))
    .output(z.array(userAppTokenDto))
    .query(({ ctx, input }) => {
      assertSelfOrUserAdmin(ctx.principal, Number(input.user_id));
      return service.listTokens(ctx.deps, Number(input.user_id));
    }),

  /**
   * Creates a token for `user_id` (`label` required, `expires_at` optional ISO-8601). Output
   * `{token, plaintext}`: the plaintext is shown this once. Errors: 403 not self/admin, 404 unknown
   * user, 409 `user_archived`, 422 `invalid_expiry`.
   */
  create: authedProcedure
    .input(
      z.object({ user_id: idSchema, label: z.string().trim().min(1).max(100), expires_at: timestampSchema.optional() }),
    )
    .output(z.object({ token: userAppTokenDto, plaintext: z.string() }))
    .mutation(({ ctx, input }) => {
      assertSelfOrUserAdmin(ctx.principal, Number(input.user_id));
      return service.createToken(ctx.deps, actorOf(ctx.principal), Number(input.user_id), input);
    }),

  /** Revokes a token (idempotent). Errors: 403 not self/admin, 404 unknown token. */
  revoke: authedProcedure
    .input(z.object({ user_id: idSchema, id: idSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => {
      assertSelfOrUserAdmin(ctx.principal, Number(input.user_id));
      return service.revokeToken(ctx.deps, actorOf(ctx.principal), Number(input.user_id), Number(input.id));
    }),
});

export const authRouter = router({
  /**
   * Internal (service credentials only): resolves a bearer credential to its principal.
   * Errors: 401 for an invalid, expired or revoked credential or archived user; 403 for user callers.
   */
  authenticate: internalProcedure
    .input(z.object({ credential: z.string().min(1).max(512) }))
    .output(principalSchema)
    .query(({ ctx, input }) => authenticate(ctx.deps, input.credential)),
});
