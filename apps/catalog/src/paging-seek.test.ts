/**
 * Every keyset-paged list whose cursor pages carry a seek index (KeysetSort.seekIndex): on MySQL the
 * cursor page, and the ids of an offset page, name the index (`FORCE INDEX`, which fails the query
 * if the index does not exist) and run; on SQLite no hint is added. The plans themselves are checked
 * in runbooks.test.ts and tasks.test.ts, where there is data enough for MariaDB to choose badly.
 */
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listComments } from './comments/comments.repository.js';
import { listExecutions } from './orchestration/executions.repository.js';
import { listEvents } from './orchestration/run.repository.js';
import { type CatalogTestKit, createCatalogTestKit } from './test-support.js';

describe.each(await testDialects())(
  'cursor and offset pages of comments, run events and executions on %s',
  (dialect) => {
    let kit: CatalogTestKit;
    beforeAll(async () => {
      kit = await createCatalogTestKit(dialect);
    });
    afterAll(() => kit.destroy());

    // A cursor after id 0 on page 2 of 0: every row of the list qualifies (there are none).
    const cursorPage = { number: 1, size: 10, after: Buffer.from(JSON.stringify([0, 0, 2, 0])).toString('base64url') };
    // An offset page reads its ids through the same index (a derived table inside the page query).
    const offsetPage = { number: 3, size: 10 };
    type Page = typeof cursorPage | typeof offsetPage;

    it.each([
      ['comments of a runbook', 'comments_runbook', (p: Page) => listComments(kit.deps.db, 1, undefined, p)],
      ['comments of a task', 'comments_task', (p: Page) => listComments(kit.deps.db, 1, 1, p)],
      ['events of a runbook', 'run_events_runbook', (p: Page) => listEvents(kit.deps.db, 1, undefined, p)],
      ['events of a task', 'run_events_task', (p: Page) => listEvents(kit.deps.db, 1, 1, p)],
      ['executions of a task', 'task_executions_task', (p: Page) => listExecutions(kit.deps.db, 1, p)],
    ] as const)('%s', async (_name, index, list) => {
      for (const [page, number] of [
        [cursorPage, 2],
        [offsetPage, 3],
      ] as const) {
        kit.queries.recent.length = 0;
        await expect(list(page)).resolves.toMatchObject({ items: [], number, next_cursor: null });
        // The page's own query (an empty offset page is followed by a separate count).
        const sql = kit.queries.recent.find((q) => q.sql.startsWith('select *'))?.sql ?? '';
        expect(sql).not.toBe('');
        if (dialect === 'mysql') expect(sql).toContain(`FORCE INDEX (\`${index}\`)`);
        else expect(sql).not.toContain('FORCE INDEX');
      }
    });
  },
);
