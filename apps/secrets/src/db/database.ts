/** The secrets service's database schema (Kysely). Timestamps are epoch milliseconds; booleans 0/1. */
import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * System parameters (DESIGN §5). `value_ciphertext` is base64 of AES-256-GCM `iv(12) | tag(16) |
 * ciphertext` under key `key_id`, with the name as additional authenticated data; the plaintext is
 * never stored.
 */
export interface SystemParameterTable {
  id: Generated<number>;
  name: string;
  display_name: string;
  description: string;
  secret: number;
  value_ciphertext: string;
  key_id: string;
  /** 1 on creation, +1 on every change. */
  version: number;
  created_at: number;
  updated_at: number;
  /** User id of the last writer; null when a service wrote. */
  updated_by: string | null;
}

/** Who changed which parameter when; never the value. `parameter_id` survives deletion (no foreign key). */
export interface SystemParameterAuditTable {
  id: Generated<number>;
  parameter_id: number;
  parameter_name: string;
  action: 'create' | 'update' | 'delete';
  /** A user id, or `service:<name>` for a service. */
  actor: string;
  old_version: number | null;
  new_version: number | null;
  created_at: number;
}

/** Rows written first in a transaction so that such transactions take turns (row `create`: parameter creation). */
export interface SystemParameterLockTable {
  name: string;
  /** When the lock was last taken (epoch ms); written only to take the row lock. */
  acquired_at: number;
}

/** All tables of the secrets database. */
export interface Database {
  system_parameters: SystemParameterTable;
  system_parameter_audit: SystemParameterAuditTable;
  system_parameter_locks: SystemParameterLockTable;
}

export type SystemParameterRow = Selectable<SystemParameterTable>;
export type NewSystemParameterRow = Insertable<SystemParameterTable>;
export type SystemParameterAuditRow = Selectable<SystemParameterAuditTable>;
export type NewSystemParameterAuditRow = Insertable<SystemParameterAuditTable>;
