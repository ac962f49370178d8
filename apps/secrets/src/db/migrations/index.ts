/** The secrets service's migrations, in the order they run. */
import type { Migration } from '@runbook/db';
import * as m001 from './20261122_001_system_parameters.js';
import * as m002 from './20261122_002_system_parameter_audit.js';
import * as m003 from './20261122_003_system_parameter_audit_parameter_index.js';
import * as m004 from './20261124_004_system_parameter_audit_name_index.js';
import * as m005 from './20261125_005_system_parameter_locks.js';

export const migrations: Record<string, Migration> = {
  '20261122_001_system_parameters': m001,
  '20261122_002_system_parameter_audit': m002,
  '20261122_003_system_parameter_audit_parameter_index': m003,
  '20261124_004_system_parameter_audit_name_index': m004,
  '20261125_005_system_parameter_locks': m005,
};
