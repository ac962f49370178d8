import { type Kysely, sql } from 'kysely';

/** Integrations: HTTP requests whose URL, header values and body are `{{system.*}}` templates. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integrations')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'varchar(200)', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('method', 'varchar(10)', (c) => c.notNull())
    .addColumn('url_template', 'text', (c) => c.notNull())
    // JSON array of {name, value}; MEDIUMTEXT on MySQL, TEXT on SQLite.
    .addColumn('headers', sql`mediumtext`, (c) => c.notNull())
    .addColumn('body_template', sql`mediumtext`)
    .addColumn('timeout_ms', 'integer', (c) => c.notNull())
    // JSON array of statuses; [] means any 2xx.
    .addColumn('success_statuses', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integrations').execute();
}
