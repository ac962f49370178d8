/** Catalog's router. Other services import only its type: `import type { CatalogRouter } from '@runbook/catalog/router'`. */
import { runbooksRouter } from './runbooks/runbooks.router.js';
import { tasksRouter } from './tasks/tasks.router.js';
import { router } from './trpc.js';
import { workspacesRouter } from './workspaces/workspaces.router.js';

export const catalogRouter = router({
  workspaces: workspacesRouter,
  runbooks: runbooksRouter,
  tasks: tasksRouter,
});

export type CatalogRouter = typeof catalogRouter;
