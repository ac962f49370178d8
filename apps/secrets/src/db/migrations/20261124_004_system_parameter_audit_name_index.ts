import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('system_parameter_audit_parameter_name')
    .on('system_parameter_audit')
    .columns(['parameter_name', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('system_parameter_audit_parameter_name').on('system_parameter_audit').execute();
}
