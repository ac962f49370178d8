import type { Kysely } from 'kysely';

/** Successor lookups, and the cascade when a predecessor is deleted. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('task_predecessors_predecessor_id')
    .on('task_predecessors')
    .column('predecessor_id')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('task_predecessors_predecessor_id').on('task_predecessors').execute();
}
