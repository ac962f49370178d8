import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('task_predecessors')
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('predecessor_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('task_predecessors_pk', ['task_id', 'predecessor_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('task_predecessors').execute();
}
