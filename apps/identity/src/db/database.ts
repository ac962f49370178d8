/** Identity's database schema (Kysely). Timestamps are epoch milliseconds; booleans 0/1. */
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

export interface UserTable {
  id: Generated<number>;
  email: string;
  first_name: string;
  last_name: string;
  archived: number;
  created_at: number;
  updated_at: number;
  /** Argon2id PHC string, or null when the user has no password (cannot sign in to the web UI). */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A role held by a user; `workspace_id` 0 means global. */
export interface RoleAssignmentTable {
  id: Generated<number>;
  user_id: number;
  role: string;
  workspace_id: number;
  created_at: number;
}

/** User app tokens: only the SHA-256 of the token is stored. */
export interface UserAppTokenTable {
  id: Generated<number>;
  user_id: number;
  label: string;
  token_hash: string;
  token_prefix: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** Credentials services present to each other; only the SHA-256 is stored. */
export interface ServiceCredentialTable {
  id: Generated<number>;
  service: string;
  credential_hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** A team of users (instance-wide). */
export interface TeamTable {
  id: Generated<number>;
  name: string;
  description: string;
  created_at: number;
  updated_at: number;
}

/** Membership of a user in a team (primary key: team, user). */
export interface TeamMemberTable {
  team_id: number;
  user_id: number;
  created_at: number;
}

/**
 * The audit trail. `user_id`: the user the event concerns; `actor_id`/`actor_service`: who acted
 * (both null for an unauthenticated caller); `details`: a JSON object, never a credential or secret.
 */
export interface ActionLogTable {
  id: Generated<number>;
  event: string;
  user_id: number | null;
  actor_id: number | null;
  actor_service: string | null;
  subject_type: string | null;
  subject_id: number | null;
  details: string;
  created_at: number;
}

/** Web UI sessions (`rbw_…` credentials): only the SHA-256 is stored; sign-out sets `revoked_at`. */
export interface WebSessionTable {
  id: Generated<number>;
  user_id: number;
  session_hash: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface Database {
  users: UserTable;
  role_assignments: RoleAssignmentTable;
  user_app_tokens: UserAppTokenTable;
  service_credentials: ServiceCredentialTable;
  teams: TeamTable;
  team_members: TeamMemberTable;
  action_logs: ActionLogTable;
  web_sessions: WebSessionTable;
}

export type UserRow = Selectable<UserTable>;
export type NewUserRow = Insertable<UserTable>;
export type UserAppTokenRow = Selectable<UserAppTokenTable>;
export type NewUserAppTokenRow = Insertable<UserAppTokenTable>;
export type TeamRow = Selectable<TeamTable>;
export type NewTeamRow = Insertable<TeamTable>;
export type ActionLogRow = Selectable<ActionLogTable>;
export type NewActionLogRow = Insertable<ActionLogTable>;
