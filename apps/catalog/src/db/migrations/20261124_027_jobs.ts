import { type Kysely, sql } from 'kysely';

/** The outbox of durable work: written in the transaction that changes a stage, claimed by workers under a lease. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('kind', 'varchar(40)', (c) => c.notNull())
    .addColumn('runbook_id', 'integer', (c) => c.notNull().references('runbooks.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.references('tasks.id').onDelete('cascade'))
    .addColumn('payload', sql`mediumtext`, (c) => c.notNull())
    // queued (claimable when available_at has passed), parked (runbook paused), done, failed, canceled.
    .addColumn('state', 'varchar(10)', (c) => c.notNull())
    // Not before this time (epoch ms); while claimed, the lease's end.
    .addColumn('available_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('idempotency_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('claimed_by', 'varchar(100)')
    .addColumn('lease_token', 'varchar(64)')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('jobs').execute();
}
