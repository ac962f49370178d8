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
import * as o001 from './20261124_001_integrations.js';
import * as o002 from './20261124_002_tasks_integration_id.js';
import * as o003 from './20261124_003_tasks_integration_index.js';
import * as o004 from './20261124_004_tasks_start_planned.js';
import * as o005 from './20261124_005_tasks_end_planned.js';
import * as o006 from './20261124_006_tasks_pending_predecessors.js';
import * as o007 from './20261124_007_tasks_execution_status.js';
import * as o008 from './20261124_008_tasks_last_error.js';
import * as o009 from './20261124_009_tasks_custom_field_values.js';
import * as o010 from './20261124_010_tasks_assignees.js';
import * as o011 from './20261124_011_tasks_runbook_stage_index.js';
import * as o012 from './20261124_012_tasks_runbook_name_index.js';
import * as o013 from './20261124_013_runbooks_custom_field_values.js';
import * as o014 from './20261124_014_runbooks_tasks_remaining.js';
import * as o015 from './20261124_015_custom_fields.js';
import * as o016 from './20261124_016_parameter_references.js';
import * as o017 from './20261124_017_parameter_references_name_index.js';
import * as o018 from './20261124_018_parameter_references_integration_index.js';
import * as o019 from './20261124_019_parameter_references_task_index.js';
import * as o020 from './20261124_020_parameter_references_runbook_index.js';
import * as o021 from './20261124_021_comments.js';
import * as o022 from './20261124_022_comments_runbook_index.js';
import * as o023 from './20261124_023_comments_task_index.js';
import * as o024 from './20261124_024_run_events.js';
import * as o025 from './20261124_025_run_events_runbook_index.js';
import * as o026 from './20261124_026_run_events_task_index.js';
import * as o027 from './20261124_027_jobs.js';
import * as o028 from './20261124_028_jobs_claim_index.js';
import * as o029 from './20261124_029_jobs_task_index.js';
import * as o030 from './20261124_030_jobs_runbook_index.js';
import * as o031 from './20261124_031_task_executions.js';
import * as o032 from './20261124_032_task_executions_task_index.js';
import * as o033 from './20261124_033_task_executions_job_index.js';
import * as p001 from './20261125_001_runbooks_workspace_created_index.js';
import * as p002 from './20261125_002_tasks_runbook_created_index.js';
import * as p003 from './20261125_003_runbooks_name_index.js';
import * as p004 from './20261125_004_runbooks_created_index.js';
import * as p005 from './20261125_005_jobs_finished_index.js';

export const migrations: Record<string, Migration> = {
  '20261121_001_workspaces': m001,
  '20261121_002_runbooks': m002,
  '20261121_003_runbooks_workspace_index': m003,
  '20261121_004_runbooks_workspace_name_index': m004,
  '20261121_005_tasks': m005,
  '20261121_006_tasks_runbook_index': m006,
  '20261121_007_task_predecessors': m007,
  '20261121_008_task_predecessors_predecessor_index': m008,
  '20261124_001_integrations': o001,
  '20261124_002_tasks_integration_id': o002,
  '20261124_003_tasks_integration_index': o003,
  '20261124_004_tasks_start_planned': o004,
  '20261124_005_tasks_end_planned': o005,
  '20261124_006_tasks_pending_predecessors': o006,
  '20261124_007_tasks_execution_status': o007,
  '20261124_008_tasks_last_error': o008,
  '20261124_009_tasks_custom_field_values': o009,
  '20261124_010_tasks_assignees': o010,
  '20261124_011_tasks_runbook_stage_index': o011,
  '20261124_012_tasks_runbook_name_index': o012,
  '20261124_013_runbooks_custom_field_values': o013,
  '20261124_014_runbooks_tasks_remaining': o014,
  '20261124_015_custom_fields': o015,
  '20261124_016_parameter_references': o016,
  '20261124_017_parameter_references_name_index': o017,
  '20261124_018_parameter_references_integration_index': o018,
  '20261124_019_parameter_references_task_index': o019,
  '20261124_020_parameter_references_runbook_index': o020,
  '20261124_021_comments': o021,
  '20261124_022_comments_runbook_index': o022,
  '20261124_023_comments_task_index': o023,
  '20261124_024_run_events': o024,
  '20261124_025_run_events_runbook_index': o025,
  '20261124_026_run_events_task_index': o026,
  '20261124_027_jobs': o027,
  '20261124_028_jobs_claim_index': o028,
  '20261124_029_jobs_task_index': o029,
  '20261124_030_jobs_runbook_index': o030,
  '20261124_031_task_executions': o031,
  '20261124_032_task_executions_task_index': o032,
  '20261124_033_task_executions_job_index': o033,
  '20261125_001_runbooks_workspace_created_index': p001,
  '20261125_002_tasks_runbook_created_index': p002,
  '20261125_003_runbooks_name_index': p003,
  '20261125_004_runbooks_created_index': p004,
  '20261125_005_jobs_finished_index': p005,
};
