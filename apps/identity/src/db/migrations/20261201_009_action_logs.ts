import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('action_logs')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('event', 'varchar(40)', (c) => c.notNull())
    .addColumn('user_id', 'bigint')
    .addColumn('actor_id', 'bigint')
    .addColumn('actor_service', 'varchar(64)')
    .addColumn('subject_type', 'varchar(40)')
    .addColumn('subject_id', 'bigint')
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('action_logs').execute();
}
