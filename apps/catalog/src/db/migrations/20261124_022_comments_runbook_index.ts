import type { Kysely } from 'kysely';

/** Keyset paging of a runbook’s comments. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('comments_runbook').on('comments').columns(['runbook_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('comments_runbook').on('comments').execute();
}
