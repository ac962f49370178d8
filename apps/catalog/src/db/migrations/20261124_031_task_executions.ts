import type { Kysely } from 'kysely';

/** One row per attempt to send an integration task’s request, secrets masked. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('task_executions')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('runbook_id', 'integer', (c) => c.notNull())
    .addColumn('integration_id', 'integer')
    .addColumn('job_id', 'integer', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('idempotency_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('outcome', 'varchar(20)', (c) => c.notNull())
    .addColumn('sent', 'integer', (c) => c.notNull())
    .addColumn('request_line', 'text', (c) => c.notNull())
    .addColumn('request_headers', 'text', (c) => c.notNull())
    .addColumn('request_body', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('response_excerpt', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('error_code', 'varchar(64)')
    .addColumn('error_detail', 'text')
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('task_executions').execute();
}
