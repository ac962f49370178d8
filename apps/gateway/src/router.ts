/**
 * The gateway router: published as REST under `/core/*` (trpc-to-openapi) and as tRPC at `/trpc`
 * for TypeScript apps (`@runbook/client`). Same procedures, same JSON bodies (no transformer).
 */
import { runbooksRouter } from './resources/runbooks.router.js';
import { systemParametersRouter } from './resources/system-parameters.router.js';
import { tasksRouter } from './resources/tasks.router.js';
import { roleTypesRouter, userAppTokensRouter, usersRouter } from './resources/users.router.js';
import { workspacesRouter } from './resources/workspaces.router.js';
import { router } from './trpc.js';

export const gatewayRouter = router({
  workspaces: workspacesRouter,
  runbooks: runbooksRouter,
  tasks: tasksRouter,
  systemParameters: systemParametersRouter,
  users: usersRouter,
  userAppTokens: userAppTokensRouter,
  roleTypes: roleTypesRouter,
});

export type GatewayRouter = typeof gatewayRouter;
