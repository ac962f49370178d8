/** Identity's database schema (Kysely). Timestamps are epoch milliseconds; booleans 0/1. */
import type { Generated, Insertable, Selectable } from 'kysely';

export interface UserTable {
  id: Generated<number>;
  email: string;
  first_name: string;
  last_name: string;
  archived: number;
  created_at: number;
  updated_at: number;
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

export interface Database {
  users: UserTable;
  role_assignments: RoleAssignmentTable;
  user_app_tokens: UserAppTokenTable;
  service_credentials: ServiceCredentialTable;
}

export type UserRow = Selectable<UserTable>;
export type NewUserRow = Insertable<UserTable>;
export type UserAppTokenRow = Selectable<UserAppTokenTable>;
export type NewUserAppTokenRow = Insertable<UserAppTokenTable>;
