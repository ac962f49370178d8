import type { Kysely } from 'kysely';

/** Tasks of an integration (where-used, delete checks). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('tasks_integration_id').on('tasks').columns(['integration_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tasks_integration_id').on('tasks').execute();
}
