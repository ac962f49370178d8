import type { Kysely } from 'kysely';

/** Keyset paging of one task’s events. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('run_events_task').on('run_events').columns(['task_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('run_events_task').on('run_events').execute();
}
