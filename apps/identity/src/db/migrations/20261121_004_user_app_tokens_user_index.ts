import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('user_app_tokens_user_id').on('user_app_tokens').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('user_app_tokens_user_id').on('user_app_tokens').execute();
}
