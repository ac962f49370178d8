import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('service_credentials')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('service', 'varchar(64)', (c) => c.notNull())
    .addColumn('credential_hash', 'char(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_credentials').execute();
}
