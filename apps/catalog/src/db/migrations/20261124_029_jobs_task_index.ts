import type { Kysely } from 'kysely';

/** Jobs of a task (cancel on finish/skip; its delete cascade). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('jobs_task').on('jobs').columns(['task_id', 'state']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_task').on('jobs').execute();
}
