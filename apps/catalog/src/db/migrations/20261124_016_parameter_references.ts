import type { Kysely } from 'kysely';

/** Where-used index: one row per system parameter name referenced by an integration or a custom field value, written when they are saved. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('parameter_references')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('integration_id', 'integer', (c) => c.references('integrations.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.references('tasks.id').onDelete('cascade'))
    .addColumn('runbook_id', 'integer', (c) => c.references('runbooks.id').onDelete('cascade'))
    .addColumn('custom_field_id', 'integer')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('parameter_references').execute();
}
