import type { Kysely } from 'kysely';

/** Claiming due jobs in order. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['state', 'available_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_claim').on('jobs').execute();
}
