/**
 * Every keyset-paged list whose cursor pages carry a seek index (KeysetSort.seekIndex): on MySQL the
 * cursor page names the index (`FORCE INDEX`, which fails the query if the index does not exist) and
 * runs; on SQLite no hint is added. The plans themselves are checked in runbooks.test.ts and
 * tasks.test.ts, where there is data enough for MariaDB to choose badly.
 */
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listComments } from './comments/comments.repository.js';
import { listExecutions } from './orchestration/executions.repository.js';
import { listEvents } from './orchestration/run.repository.js';
import { type CatalogTestKit, createCatalogTestKit } from './test-support.js';

describe.each(await testDialects())('cursor pages of comments, run events and executions on %s', (dialect) => {
  let kit: CatalogTestKit;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
  });
  afterAll(() => kit.destroy());

  // A cursor after id 0 on page 2 of 0: every row of the list qualifies (there are none).
  const page = { number: 1, size: 10, after: Buffer.from(JSON.stringify([0, 0, 2, 0])).toString('base64url') };

  it.each([
    ['comments of a runbook', 'comments_runbook', () => listComments(kit.deps.db, 1, undefined, page)],
    ['comments of a task', 'comments_task', () => listComments(kit.deps.db, 1, 1, page)],
    ['events of a runbook', 'run_events_runbook', () => listEvents(kit.deps.db, 1, undefined, page)],
    ['events of a task', 'run_events_task', () => listEvents(kit.deps.db, 1, 1, page)],
    ['executions of a task', 'task_executions_task', () => listExecutions(kit.deps.db, 1, page)],
  ] as const)('%s', async (_name, index, list) => {
    kit.queries.recent.length = 0;
    await expect(list()).resolves.toMatchObject({ items: [], number: 2, next_cursor: null });
    const sql = kit.queries.recent.at(-1)?.sql ?? '';
    if (dialect === 'mysql') expect(sql).toContain(`FORCE INDEX (\`${index}\`)`);
    else expect(sql).not.toContain('FORCE INDEX');
  });
});
