import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runbooks')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    // MEDIUMTEXT on MySQL: 20,000 characters of utf8mb4 exceed TEXT's 65,535 bytes. SQLite reads it as TEXT.
    .addColumn('description', sql`mediumtext`, (c) => c.notNull())
    .addColumn('stage', 'varchar(20)', (c) => c.notNull().defaultTo('planning'))
    .addColumn('run_type', 'varchar(20)')
    .addColumn('is_template', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('runbooks').execute();
}
