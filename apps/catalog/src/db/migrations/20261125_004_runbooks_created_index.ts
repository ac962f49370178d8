import type { Kysely } from 'kysely';

/** Keyset paging of runbooks across workspaces by `created_at` (without it every page sorted every runbook). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('runbooks_created_id').on('runbooks').columns(['created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('runbooks_created_id').on('runbooks').execute();
}
