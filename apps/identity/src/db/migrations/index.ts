/** Identity's migrations, in the order they run. */
import type { Migration } from '@runbook/db';
import * as m001 from './20261121_001_users.js';
import * as m002 from './20261121_002_role_assignments.js';
import * as m003 from './20261121_003_user_app_tokens.js';
import * as m004 from './20261121_004_user_app_tokens_user_index.js';
import * as m005 from './20261121_005_service_credentials.js';
import * as m006 from './20261201_006_teams.js';
import * as m007 from './20261201_007_team_members.js';
import * as m008 from './20261201_008_team_members_user_index.js';
import * as m009 from './20261201_009_action_logs.js';
import * as m010 from './20261201_010_action_logs_user_index.js';
import * as m011 from './20261201_011_action_logs_actor_index.js';
import * as m012 from './20261201_012_action_logs_created_index.js';
import * as m013 from './20261215_013_users_password_hash.js';
import * as m014 from './20261215_014_web_sessions.js';
import * as m015 from './20261215_015_web_sessions_user_index.js';

export const migrations: Record<string, Migration> = {
  '20261121_001_users': m001,
  '20261121_002_role_assignments': m002,
  '20261121_003_user_app_tokens': m003,
  '20261121_004_user_app_tokens_user_index': m004,
  '20261121_005_service_credentials': m005,
  '20261201_006_teams': m006,
  '20261201_007_team_members': m007,
  '20261201_008_team_members_user_index': m008,
  '20261201_009_action_logs': m009,
  '20261201_010_action_logs_user_index': m010,
  '20261201_011_action_logs_actor_index': m011,
  '20261201_012_action_logs_created_index': m012,
  '20261215_013_users_password_hash': m013,
  '20261215_014_web_sessions': m014,
  '20261215_015_web_sessions_user_index': m015,
};
