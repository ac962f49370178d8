import type { Kysely } from 'kysely';

/** Keyset paging of a task’s executions; its delete cascade. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('task_executions_task').on('task_executions').columns(['task_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('task_executions_task').on('task_executions').execute();
}
