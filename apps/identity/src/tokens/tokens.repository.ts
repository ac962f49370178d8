/** The only code that touches user_app_tokens and service_credentials. */
import { insertReturningId } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Database, NewUserAppTokenRow, UserAppTokenRow } from '../db/database.js';

type Db = Kysely<Database>;

export const insertUserAppToken = (db: Db, row: NewUserAppTokenRow): Promise<number> =>
  insertReturningId(db, 'user_app_tokens', row);

export const findUserAppToken = (db: Db, userId: number, id: number): Promise<UserAppTokenRow | undefined> =>
  db.selectFrom('user_app_tokens').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

/** A user's tokens (revoked ones included, newest first). */
export const listUserAppTokens = (db: Db, userId: number): Promise<UserAppTokenRow[]> =>
  db.selectFrom('user_app_tokens').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').execute();

export async function revokeUserAppToken(db: Db, id: number, now: number): Promise<void> {
  await db
    .updateTable('user_app_tokens')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function touchUserAppToken(db: Db, id: number, now: number): Promise<void> {
  await db.updateTable('user_app_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** The token with this hash joined with its user's state, in one query. */
export const findTokenForAuthentication = (db: Db, tokenHash: string) =>
  db
    .selectFrom('user_app_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.user_id', 't.created_at', 't.expires_at', 't.revoked_at', 't.last_used_at', 'u.archived'])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();

export const insertServiceCredential = (db: Db, service: string, hash: string, now: number): Promise<number> =>
  insertReturningId(db, 'service_credentials', { service, credential_hash: hash, created_at: now, revoked_at: null });

export const findServiceCredential = (db: Db, hash: string) =>
  db
    .selectFrom('service_credentials')
    .select(['id', 'service', 'revoked_at'])
    .where('credential_hash', '=', hash)
    .executeTakeFirst();
