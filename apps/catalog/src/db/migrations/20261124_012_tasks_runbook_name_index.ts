import type { Kysely } from 'kysely';

/** Keyset paging of a runbook’s tasks by name. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('tasks_runbook_name').on('tasks').columns(['runbook_id', 'name', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tasks_runbook_name').on('tasks').execute();
}
