import type { Kysely } from 'kysely';

/** Keyset paging of a task’s comments; its delete cascade. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('comments_task').on('comments').columns(['task_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('comments_task').on('comments').execute();
}
