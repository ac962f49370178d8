/**
 * The only code that touches `parameter_references`, the where-used index of system parameters:
 * rows are replaced whenever an integration or a custom field value is saved, so a where-used
 * lookup is an index read by name rather than a scan of every template.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { chunks } from '../orchestration/run.repository.js';

type Db = Kysely<Database>;

/** Replaces the names referenced by integration `integrationId`'s templates. */
export async function replaceIntegrationReferences(trx: Db, integrationId: number, names: string[]): Promise<void> {
  await trx.deleteFrom('parameter_references').where('integration_id', '=', integrationId).execute();
  if (names.length === 0) return;
  await trx
    .insertInto('parameter_references')
    .values(
      names.map((name) => ({
        name,
        integration_id: integrationId,
        task_id: null,
        runbook_id: null,
        custom_field_id: null,
      })),
    )
    .execute();
}

/** The subject of custom field values: a task (with its runbook) or a runbook. */
export type FieldSubject =
  | { type: 'task'; task_id: number; runbook_id: number }
  | { type: 'runbook'; runbook_id: number };

/** Replaces the names referenced by the custom field values of `subject`. */
export async function replaceFieldReferences(
  trx: Db,
  subject: FieldSubject,
  refs: Array<{ custom_field_id: number; name: string }>,
): Promise<void> {
  let del = trx.deleteFrom('parameter_references').where('custom_field_id', 'is not', null);
  del =
    subject.type === 'task'
      ? del.where('task_id', '=', subject.task_id)
      : del.where('runbook_id', '=', subject.runbook_id).where('task_id', 'is', null);
  await del.execute();
  for (const part of chunks(refs, 200)) {
    await trx
      .insertInto('parameter_references')
      .values(
        part.map((r) => ({
          name: r.name,
          integration_id: null,
          task_id: subject.type === 'task' ? subject.task_id : null,
          runbook_id: subject.runbook_id,
          custom_field_id: r.custom_field_id,
        })),
      )
      .execute();
  }
}

/** Integrations whose templates reference `name` (at most `limit`). */
export function findReferencingIntegrations(db: Db, name: string, limit: number) {
  return db
    .selectFrom('parameter_references as r')
    .innerJoin('integrations as i', 'i.id', 'r.integration_id')
    .select(['i.id', 'i.name'])
    .where('r.name', '=', name)
    .orderBy('i.id')
    .limit(limit)
    .execute();
}

/** Tasks running one of `integrationIds`, with their workspace (at most `limit`). */
export function findTasksOfIntegrations(db: Db, integrationIds: number[], limit: number) {
  if (integrationIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('tasks as t')
    .innerJoin('runbooks as rb', 'rb.id', 't.runbook_id')
    .select(['t.id', 't.runbook_id', 't.name', 'rb.workspace_id'])
    .where('t.integration_id', 'in', integrationIds)
    .orderBy('t.id')
    .limit(limit)
    .execute();
}

/** Custom field values referencing `name`, with the task's name when the subject is a task and the workspace (at most `limit`). */
export function findReferencingFieldValues(db: Db, name: string, limit: number) {
  return db
    .selectFrom('parameter_references as r')
    .leftJoin('tasks as t', 't.id', 'r.task_id')
    .innerJoin('runbooks as rb', 'rb.id', 'r.runbook_id')
    .select(['r.custom_field_id', 'r.task_id', 'r.runbook_id', 't.name as task_name', 'rb.workspace_id'])
    .where('r.name', '=', name)
    .where('r.custom_field_id', 'is not', null)
    .orderBy('r.id')
    .limit(limit)
    .execute();
}
