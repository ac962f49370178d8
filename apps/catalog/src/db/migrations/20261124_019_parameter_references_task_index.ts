import type { Kysely } from 'kysely';

/** Replacing a task’s references; its delete cascade. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('parameter_references_task').on('parameter_references').columns(['task_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('parameter_references_task').on('parameter_references').execute();
}
