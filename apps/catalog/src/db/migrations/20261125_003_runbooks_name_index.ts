import type { Kysely } from 'kysely';

/** Keyset paging of runbooks across workspaces by name (without it every page sorted every runbook). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('runbooks_name_id').on('runbooks').columns(['name', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('runbooks_name_id').on('runbooks').execute();
}
