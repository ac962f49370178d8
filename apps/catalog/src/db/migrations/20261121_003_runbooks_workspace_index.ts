import type { Kysely } from 'kysely';

/** Keyset paging of a workspace's runbooks by id. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('runbooks_workspace_id').on('runbooks').columns(['workspace_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('runbooks_workspace_id').on('runbooks').execute();
}
