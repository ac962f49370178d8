import type { Kysely } from 'kysely';

/** Argon2id hash (PHC string) of the user's password; null until one is set. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_hash', 'varchar(255)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}
