import type { Kysely } from 'kysely';

/** Where-used lookups by parameter name. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('parameter_references_name').on('parameter_references').columns(['name']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('parameter_references_name').on('parameter_references').execute();
}
