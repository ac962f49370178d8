import type { Kysely } from 'kysely';

/** Finished jobs by age, for the retention sweep (`deleteFinishedJobs`). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('jobs_finished').on('jobs').columns(['state', 'updated_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_finished').on('jobs').execute();
}
