import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('system_parameter_audit')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('parameter_id', 'bigint', (c) => c.notNull())
    .addColumn('parameter_name', 'varchar(64)', (c) => c.notNull())
    .addColumn('action', 'varchar(16)', (c) => c.notNull())
    .addColumn('actor', 'varchar(100)', (c) => c.notNull())
    .addColumn('old_version', 'integer')
    .addColumn('new_version', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('system_parameter_audit').execute();
}
