import type { Kysely } from 'kysely';

/** The stage-change log of runbooks and tasks (who, when). Events of a deleted task are kept. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('run_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('runbook_id', 'integer', (c) => c.notNull().references('runbooks.id').onDelete('cascade'))
    .addColumn('task_id', 'integer')
    .addColumn('kind', 'varchar(40)', (c) => c.notNull())
    .addColumn('from_stage', 'varchar(20)')
    .addColumn('to_stage', 'varchar(20)')
    .addColumn('completion_type', 'varchar(20)')
    .addColumn('run_type', 'varchar(20)')
    .addColumn('actor_type', 'varchar(10)', (c) => c.notNull())
    .addColumn('actor_id', 'varchar(64)')
    .addColumn('message', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('run_events').execute();
}
