import type { Kysely } from 'kysely';

/** Tasks not yet complete during a run; the run completes when it reaches 0. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('runbooks')
    .addColumn('tasks_remaining', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runbooks').dropColumn('tasks_remaining').execute();
}
