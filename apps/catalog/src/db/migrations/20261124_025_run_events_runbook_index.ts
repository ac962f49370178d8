import type { Kysely } from 'kysely';

/** Keyset paging of a runbook’s events. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('run_events_runbook').on('run_events').columns(['runbook_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('run_events_runbook').on('run_events').execute();
}
