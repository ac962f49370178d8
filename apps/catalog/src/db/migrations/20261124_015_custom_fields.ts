import type { Kysely } from 'kysely';

/** Custom field definitions. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('custom_fields')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('field_type', 'varchar(40)', (c) => c.notNull())
    .addColumn('applies_to', 'varchar(10)', (c) => c.notNull())
    // JSON array of the allowed values of a select field.
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('custom_fields').execute();
}
