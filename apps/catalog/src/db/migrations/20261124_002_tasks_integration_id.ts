import type { Kysely } from 'kysely';

/** The integration an integration task runs (null for manual tasks); checked in code, not by a foreign key. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('integration_id', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('integration_id').execute();
}
