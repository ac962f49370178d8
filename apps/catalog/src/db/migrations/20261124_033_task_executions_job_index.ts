import type { Kysely } from 'kysely';

/** In-flight executions of a job (marked interrupted when the job is re-run). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('task_executions_job').on('task_executions').columns(['job_id', 'outcome']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('task_executions_job').on('task_executions').execute();
}
