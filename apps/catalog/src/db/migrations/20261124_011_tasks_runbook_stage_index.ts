import type { Kysely } from 'kysely';

/** Tasks of a runbook in one stage (stage filter; startable auto-start tasks on resume). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('tasks_runbook_stage').on('tasks').columns(['runbook_id', 'stage', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tasks_runbook_stage').on('tasks').execute();
}
