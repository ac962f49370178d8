import type { Kysely } from 'kysely';

/** Replacing an integration’s references; its delete cascade. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('parameter_references_integration')
    .on('parameter_references')
    .columns(['integration_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('parameter_references_integration').on('parameter_references').execute();
}
