import type { Kysely } from 'kysely';

/** Predecessors not yet complete during a run; a task becomes startable when it reaches 0. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tasks')
    .addColumn('pending_predecessors', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('pending_predecessors').execute();
}
