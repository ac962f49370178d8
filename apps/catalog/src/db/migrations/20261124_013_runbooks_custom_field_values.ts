import { type Kysely, sql } from 'kysely';

/** JSON array of {custom_field_id, value}; null means none. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runbooks').addColumn('custom_field_values', sql`mediumtext`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('runbooks').dropColumn('custom_field_values').execute();
}
