/** Identity's migrations, in the order they run. */
import type { Migration } from '@runbook/db';
import * as m001 from './20261121_001_users.js';
import * as m002 from './20261121_002_role_assignments.js';
import * as m003 from './20261121_003_user_app_tokens.js';
import * as m004 from './20261121_004_user_app_tokens_user_index.js';
import * as m005 from './20261121_005_service_credentials.js';

export const migrations: Record<string, Migration> = {
  '20261121_001_users': m001,
  '20261121_002_role_assignments': m002,
  '20261121_003_user_app_tokens': m003,
  '20261121_004_user_app_tokens_user_index': m004,
  '20261121_005_service_credentials': m005,
};
