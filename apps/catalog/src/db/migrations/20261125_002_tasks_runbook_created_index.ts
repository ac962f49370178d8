import type { Kysely } from 'kysely';

/** Keyset paging of a runbook’s tasks by `created_at` (without it every page sorted all of the runbook’s tasks). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('tasks_runbook_created')
    .on('tasks')
    .columns(['runbook_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tasks_runbook_created').on('tasks').execute();
}
