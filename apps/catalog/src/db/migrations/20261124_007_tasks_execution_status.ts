import type { Kysely } from 'kysely';

/** Integration tasks: queued | retrying | failed | succeeded. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('execution_status', 'varchar(20)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('execution_status').execute();
}
