import type { Kysely } from 'kysely';

/** Jobs of a runbook (park, unpark, cancel). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('jobs_runbook').on('jobs').columns(['runbook_id', 'state']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_runbook').on('jobs').execute();
}
