import { type Kysely, sql } from 'kysely';

/** Comments on runbooks and their tasks. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('comments')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('runbook_id', 'integer', (c) => c.notNull().references('runbooks.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.references('tasks.id').onDelete('cascade'))
    .addColumn('author_type', 'varchar(10)', (c) => c.notNull())
    .addColumn('author_id', 'varchar(64)')
    .addColumn('body', sql`mediumtext`, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('comments').execute();
}
