/** Identity's router. Other services import only its type: `import type { IdentityRouter } from '@runbook/identity/router'`. */
import { authRouter, userAppTokensRouter } from './tokens/tokens.router.js';
import { router } from './trpc.js';
import { usersRouter } from './users/users.router.js';

export const identityRouter = router({
  auth: authRouter,
  users: usersRouter,
  userAppTokens: userAppTokensRouter,
});

export type IdentityRouter = typeof identityRouter;
