/**
 * The gateway router: published as REST under `/core/*` (trpc-to-openapi) and as tRPC at `/trpc`
 * for TypeScript apps (`@runbook/client`). Same procedures, same JSON bodies (no transformer).
 */
import { outputValidationModeFromEnv, placeOutputValidation } from './output-validation.js';
import { actionLogsRouter } from './resources/action-logs.router.js';
import { commentsRouter } from './resources/comments.router.js';
import { customFieldsRouter } from './resources/custom-fields.router.js';
import { integrationsRouter } from './resources/integrations.router.js';
import { runbooksRouter } from './resources/runbooks.router.js';
import { systemParametersRouter } from './resources/system-parameters.router.js';
import { tasksRouter } from './resources/tasks.router.js';
import { teamsRouter } from './resources/teams.router.js';
import { usagesRouter } from './resources/usages.router.js';
import { roleTypesRouter, userAppTokensRouter, usersRouter } from './resources/users.router.js';
import { workspacesRouter } from './resources/workspaces.router.js';
import { router } from './trpc.js';

/** The gateway's public router, served as REST under `/core/*` (each procedure's `meta.openapi`), at `/trpc` and described by `/openapi.json`; procedures forward to catalog, identity and secrets with the caller's credential. */
export const gatewayRouter = router({
  workspaces: workspacesRouter,
  runbooks: runbooksRouter,
  tasks: tasksRouter,
  systemParameters: systemParametersRouter,
  users: usersRouter,
  userAppTokens: userAppTokensRouter,
  roleTypes: roleTypesRouter,
  teams: teamsRouter,
  actionLogs: actionLogsRouter,
  integrations: integrationsRouter,
  customFields: customFieldsRouter,
  comments: commentsRouter,
  systemParameterUsages: usagesRouter,
});

// Response documents are validated by the services that produce their data (see output-validation.ts).
placeOutputValidation(gatewayRouter, outputValidationModeFromEnv());

/** The router's type, for typed clients (`@runbook/client`). */
export type GatewayRouter = typeof gatewayRouter;
