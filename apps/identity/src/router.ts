/** Identity's router. Other services import only its type: `import type { IdentityRouter } from '@runbook/identity/router'`. */
import { actionLogsRouter } from './action-logs/action-logs.router.js';
import { sessionsRouter } from './sessions/sessions.router.js';
import { teamsRouter } from './teams/teams.router.js';
import { authRouter, userAppTokensRouter } from './tokens/tokens.router.js';
import { router } from './trpc.js';
import { usersRouter } from './users/users.router.js';

/** Identity's router: `auth` (authenticate), `users`, `userAppTokens`, `teams`, `actionLogs`, `sessions` (settings UI sign-in). */
export const identityRouter = router({
  auth: authRouter,
  users: usersRouter,
  userAppTokens: userAppTokensRouter,
  teams: teamsRouter,
  actionLogs: actionLogsRouter,
  sessions: sessionsRouter,
});

/** The router's type, for typed clients. */
export type IdentityRouter = typeof identityRouter;
