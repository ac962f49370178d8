import type { Kysely } from 'kysely';

/**
 * `system_parameter_locks`: one row per serialized operation, written first in its transaction so
 * that such transactions take turns (a row lock on MySQL; SQLite has one writer anyway). Row
 * `create` serializes parameter creation, which makes `SECRETS_MAX_PARAMETERS` exact under
 * concurrency (`lockParameterCreation`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('system_parameter_locks')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('acquired_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('system_parameter_locks').values({ name: 'create', acquired_at: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('system_parameter_locks').execute();
}
