import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tasks')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('runbook_id', 'integer', (c) => c.notNull().references('runbooks.id').onDelete('cascade'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', sql`mediumtext`, (c) => c.notNull())
    .addColumn('stage', 'varchar(20)', (c) => c.notNull().defaultTo('not_startable'))
    .addColumn('completion_type', 'varchar(20)')
    .addColumn('duration', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_start', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_finish', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('start_actual', 'bigint')
    .addColumn('end_actual', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tasks').execute();
}
