import type { Kysely } from 'kysely';

/** Last execution error of an integration task (secrets masked). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('last_error', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('last_error').execute();
}
