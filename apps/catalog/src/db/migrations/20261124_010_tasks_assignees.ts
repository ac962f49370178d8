import type { Kysely } from 'kysely';

/** JSON array of {type: user|team, id}; null means none. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('assignees', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').dropColumn('assignees').execute();
}
