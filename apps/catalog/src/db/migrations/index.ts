/** Catalog's migrations, in the order they run. */
import type { Migration } from '@runbook/db';
import * as m001 from './20261121_001_workspaces.js';
import * as m002 from './20261121_002_runbooks.js';
import * as m003 from './20261121_003_runbooks_workspace_index.js';
import * as m004 from './20261121_004_runbooks_workspace_name_index.js';
import * as m005 from './20261121_005_tasks.js';
import * as m006 from './20261121_006_tasks_runbook_index.js';
import * as m007 from './20261121_007_task_predecessors.js';
import * as m008 from './20261121_008_task_predecessors_predecessor_index.js';

export const migrations: Record<string, Migration> = {
  '20261121_001_workspaces': m001,
  '20261121_002_runbooks': m002,
  '20261121_003_runbooks_workspace_index': m003,
  '20261121_004_runbooks_workspace_name_index': m004,
  '20261121_005_tasks': m005,
  '20261121_006_tasks_runbook_index': m006,
  '20261121_007_task_predecessors': m007,
  '20261121_008_task_predecessors_predecessor_index': m008,
};
