/** Catalog's router. Other services import only its type: `import type { CatalogRouter } from '@runbook/catalog/router'`. */
import { commentsRouter } from './comments/comments.router.js';
import { customFieldsRouter } from './custom-fields/custom-fields.router.js';
import { integrationsRouter } from './integrations/integrations.router.js';
import { runbooksRouter } from './runbooks/runbooks.router.js';
import { tasksRouter } from './tasks/tasks.router.js';
import { router } from './trpc.js';
import { usagesRouter } from './usages/usages.router.js';
import { workspacesRouter } from './workspaces/workspaces.router.js';

/** Catalog's router: `workspaces`, `runbooks`, `tasks` (incl. run actions), `integrations`, `customFields`, `comments`, `usages` (where system parameters are used). Each procedure documents its input, output and errors. */
export const catalogRouter = router({
  workspaces: workspacesRouter,
  runbooks: runbooksRouter,
  tasks: tasksRouter,
  integrations: integrationsRouter,
  customFields: customFieldsRouter,
  comments: commentsRouter,
  usages: usagesRouter,
});

/** The router's type, for typed clients. */
export type CatalogRouter = typeof catalogRouter;
