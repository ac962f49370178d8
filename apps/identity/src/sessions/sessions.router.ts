/**
 * `sessions.*`: the web UI's sign-in, called by the gateway's `/settings/api/*` routes (not REST).
 * `signIn` is public (the email and password are the credential); `signOut` revokes the session
 * credential the call presents.
 */
import { userDto } from '@runbook/contracts';
import { z } from 'zod';
import { publicProcedure, router } from '../trpc.js';
import * as service from './sessions.service.js';

export const sessionsRouter = router({
  /**
   * Input `{email, password, ip}` (`ip`: the client address the gateway saw). Output
   * `{session, expires_at, user}`: the `rbw_…` credential, shown this once.
   * Errors: 401 `invalid_credentials`, 429 `rate_limited` (Retry-After).
   */
  signIn: publicProcedure
    .input(
      z.object({
        email: z.string().trim().min(1).max(254),
        password: z.string().min(1).max(256),
        ip: z.string().max(64),
      }),
    )
    .output(z.object({ session: z.string(), expires_at: z.string(), user: userDto }))
    .mutation(({ ctx, input }) => service.signIn(ctx.deps, input)),

  /** Revokes the presented session credential (idempotent; other credentials are ignored). */
  signOut: publicProcedure.output(z.void()).mutation(({ ctx }) => service.signOut(ctx.deps, ctx.credential)),
});
