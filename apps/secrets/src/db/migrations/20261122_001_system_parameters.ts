import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('system_parameters')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('display_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('secret', 'integer', (c) => c.notNull())
    .addColumn('value_ciphertext', 'text', (c) => c.notNull())
    .addColumn('key_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'varchar(64)')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('system_parameters').execute();
}
