/** The only code that touches web_sessions. */
import { insertReturningId } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';

type Db = Kysely<Database>;

export const insertWebSession = (
  db: Db,
  row: { user_id: number; session_hash: string; created_at: number; expires_at: number },
): Promise<number> => insertReturningId(db, 'web_sessions', { ...row, revoked_at: null });

/** The session with this hash joined with its user's state, in one query. */
export const findSessionForAuthentication = (db: Db, sessionHash: string) =>
  db
    .selectFrom('web_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.user_id', 's.expires_at', 's.revoked_at', 'u.archived'])
    .where('s.session_hash', '=', sessionHash)
    .executeTakeFirst();

export async function revokeWebSession(db: Db, sessionHash: string, now: number): Promise<void> {
  await db
    .updateTable('web_sessions')
    .set({ revoked_at: now })
    .where('session_hash', '=', sessionHash)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes every active session of a user but `exceptHash`; returns their hashes (to drop cached authentications). */
export async function revokeUserSessions(
  db: Db,
  userId: number,
  now: number,
  exceptHash: string | null,
): Promise<string[]> {
  const rows = await db
    .selectFrom('web_sessions')
    .select('session_hash')
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
  const hashes = rows.map((r) => r.session_hash).filter((h) => h !== exceptHash);
  if (hashes.length === 0) return [];
  await db.updateTable('web_sessions').set({ revoked_at: now }).where('session_hash', 'in', hashes).execute();
  return hashes;
}
