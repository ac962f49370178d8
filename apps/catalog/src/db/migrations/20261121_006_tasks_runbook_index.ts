import type { Kysely } from 'kysely';

/** Keyset paging of a runbook's tasks by id. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('tasks_runbook_id').on('tasks').columns(['runbook_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tasks_runbook_id').on('tasks').execute();
}
