import type { Kysely } from 'kysely';

/** Keyset paging of a workspace’s runbooks by `created_at` (without it every page sorted the whole workspace). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('runbooks_workspace_created_id')
    .on('runbooks')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('runbooks_workspace_created_id').on('runbooks').execute();
}
