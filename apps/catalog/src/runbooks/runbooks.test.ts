import type { RunbookDto } from '@runbook/contracts';
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appErrorOf,
  type CatalogCaller,
  type CatalogTestKit,
  codeOf,
  createCatalogTestKit,
  type ExplainRow,
  expectCursorPagesToSeek,
  explainLatest,
  insertMany,
  type QueryPlanRow,
} from '../test-support.js';

const SORTS = ['name', '-name', 'created_at', '-created_at', 'id', '-id'] as const;

/** The order the service must produce: by field, then id, both in the sort's direction. */
function expectedOrder(runbooks: RunbookDto[], sort: (typeof SORTS)[number]): string[] {
  const desc = sort.startsWith('-');
  const field = sort.replace('-', '') as 'name' | 'created_at' | 'id';
  const key = (r: RunbookDto) => (field === 'id' ? Number(r.id) : r[field]);
  const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  return [...runbooks]
    .sort((a, b) => (desc ? -1 : 1) * (cmp(key(a), key(b)) || cmp(Number(a.id), Number(b.id))))
    .map((r) => r.id);
}

describe.each(await testDialects())('runbooks on %s', (dialect) => {
  let kit: CatalogTestKit;
  let manager: CatalogCaller;
  let developer: CatalogCaller;
  let wsA: string;
  let wsB: string;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
    manager = kit.as(['developer', 'workspace_manager']);
    developer = kit.as(['developer']);
    wsA = (await manager.workspaces.create({ name: 'A' })).id;
    wsB = (await manager.workspaces.create({ name: 'B' })).id;
  });
  afterAll(() => kit.destroy());

  it('creates, gets, updates and deletes a runbook', async () => {
    const created = await manager.runbooks.create({
      workspace_id: wsA,
      name: 'Failover',
      description: 'Primary to standby',
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      workspace_id: wsA,
      name: 'Failover',
      description: 'Primary to standby',
      stage: 'planning',
      run_type: null,
      is_template: false,
      custom_field_values: [],
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: '2026-11-21T12:00:00.000Z',
    });
    expect(await developer.runbooks.get({ id: created.id })).toEqual(created);

    kit.clock.now += 60_000;
    const renamed = await manager.runbooks.update({ id: created.id, name: 'Failover v2' });
    expect(renamed).toEqual({ ...created, name: 'Failover v2', updated_at: '2026-11-21T12:01:00.000Z' });
    expect(await manager.runbooks.update({ id: created.id })).toEqual(renamed);

    await manager.runbooks.delete({ id: created.id });
    expect(await codeOf(developer.runbooks.get({ id: created.id }))).toBe('NOT_FOUND');
    expect(await codeOf(manager.runbooks.delete({ id: created.id }))).toBe('NOT_FOUND');
    expect(await codeOf(manager.runbooks.update({ id: created.id, name: 'x' }))).toBe('NOT_FOUND');
  });

  it('answers 422 with pointers, unknown_workspace and 404 before 403', async () => {
    const invalid = await appErrorOf(
      manager.runbooks.create({ workspace_id: wsA, name: '', is_template: 'no' as never }),
    );
    expect(invalid.status).toBe(422);
    expect(invalid.errors.map((e) => e.source?.pointer).sort()).toEqual(['/is_template', '/name']);

    const unknown = await appErrorOf(manager.runbooks.create({ workspace_id: '999999', name: 'Orphan' }));
    expect(unknown).toMatchObject({ status: 422, code: 'unknown_workspace' });
    expect(unknown.errors[0]?.source).toEqual({ pointer: '/data/relationships/workspace' });

    expect(await codeOf(developer.runbooks.get({ id: '999999' }))).toBe('NOT_FOUND');
    expect(await codeOf(developer.runbooks.update({ id: '999999', name: 'x' }))).toBe('NOT_FOUND');
    expect(await codeOf(developer.runbooks.delete({ id: '999999' }))).toBe('NOT_FOUND');
  });

  it('lets developers read and workspace managers write, within their workspace', async () => {
    const inA = await manager.runbooks.create({ workspace_id: wsA, name: 'In A' });
    const inB = await manager.runbooks.create({ workspace_id: wsB, name: 'In B' });
    expect(await codeOf(developer.runbooks.get({ id: inA.id }))).toBe('ok');
    expect(await codeOf(developer.runbooks.list({ page: {} }))).toBe('ok');
    expect(await codeOf(developer.runbooks.create({ workspace_id: wsA, name: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(developer.runbooks.update({ id: inA.id, name: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(developer.runbooks.delete({ id: inA.id }))).toBe('FORBIDDEN');
    expect(await codeOf(kit.as([]).runbooks.get({ id: inA.id }))).toBe('FORBIDDEN');

    const managerOfA = kit.as(['developer', { role: 'workspace_manager', workspace_id: wsA }]);
    expect(await codeOf(managerOfA.runbooks.create({ workspace_id: wsA, name: 'ok' }))).toBe('ok');
    expect(await codeOf(managerOfA.runbooks.update({ id: inA.id, name: 'ok' }))).toBe('ok');
    expect(await codeOf(managerOfA.runbooks.create({ workspace_id: wsB, name: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(managerOfA.runbooks.update({ id: inB.id, name: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(managerOfA.runbooks.delete({ id: inB.id }))).toBe('FORBIDDEN');
    expect(await codeOf(managerOfA.runbooks.delete({ id: inA.id }))).toBe('ok');
    expect((await developer.runbooks.get({ id: inB.id })).name).toBe('In B');
    expect(await codeOf(manager.runbooks.delete({ id: inB.id }))).toBe('ok');
  });

  it('scopes lists to visible workspaces; one workspace is an equality filter (its index is sought)', async () => {
    const wsC = (await manager.workspaces.create({ name: 'C' })).id;
    const inA = await manager.runbooks.create({ workspace_id: wsA, name: 'Scoped in A' });
    const inB = await manager.runbooks.create({ workspace_id: wsB, name: 'Scoped in B' });
    const inC = await manager.runbooks.create({ workspace_id: wsC, name: 'Scoped in C' });
    const names = async (caller: CatalogCaller, workspace_id?: string) => {
      kit.queries.count = 0;
      const page = await caller.runbooks.list({ workspace_id, page: { size: 100 } });
      const sql = kit.queries.recent.at(-1)?.sql ?? '';
      return { ids: page.items.map((r) => r.id).filter((id) => [inA.id, inB.id, inC.id].includes(id)), sql };
    };
    const onlyA = kit.as([{ role: 'developer', workspace_id: wsA }]);
    const mine = await names(onlyA);
    expect(mine.ids).toEqual([inA.id]);
    expect(mine.sql).toMatch(/workspace_id["`]? = \?/);
    expect(mine.sql).not.toMatch(/ in \(/i);
    expect((await names(onlyA, wsA)).ids).toEqual([inA.id]);
    expect((await names(onlyA, wsB)).ids).toEqual([]);
    const aAndC = kit.as([
      { role: 'developer', workspace_id: wsA },
      { role: 'developer', workspace_id: wsC },
    ]);
    const both = await names(aAndC);
    expect(both.ids).toEqual([inA.id, inC.id]);
    expect(both.sql).toMatch(/ in \(/i);
    expect((await names(aAndC, wsC)).sql).not.toMatch(/ in \(/i);
    expect((await names(developer)).ids).toEqual([inA.id, inB.id, inC.id]);
  });

  describe('keyset pagination', () => {
    let ws: string;
    let runbooks: RunbookDto[];
    beforeAll(async () => {
      ws = (await manager.workspaces.create({ name: 'Paging' })).id;
      const names = ['alpha', 'Bravo', 'charlie', 'delta', 'Echo'];
      runbooks = [];
      for (let i = 0; i < 60; i++) {
        // Repeated names and created_at values make the id tie-breaker matter.
        if (i % 4 === 0) kit.clock.now += 1000;
        const name = `${names[i % 5]} ${i % 7}`;
        runbooks.push(await manager.runbooks.create({ workspace_id: ws, name, is_template: i % 6 === 0 }));
      }
    });

    it.each(SORTS)('walks every page with page.after in sort %s', async (sort) => {
      const seen: string[] = [];
      let after: string | undefined;
      for (let pageNo = 1; ; pageNo++) {
        const page = await developer.runbooks.list({
          workspace_id: ws,
          sort,
          page: { size: 7, ...(after ? { after } : {}) },
        });
        expect(page).toMatchObject({ number: pageNo, size: 7, total: 60 });
        seen.push(...page.items.map((r) => r.id));
        if (!page.next_cursor) break;
        after = page.next_cursor;
      }
      expect(seen).toEqual(expectedOrder(runbooks, sort));
    });

    it.each(SORTS)('serves page[number] as an offset in sort %s', async (sort) => {
      const order = expectedOrder(runbooks, sort);
      for (let number = 1; number <= 9; number++) {
        const page = await developer.runbooks.list({ workspace_id: ws, sort, page: { number, size: 7 } });
        expect(page).toMatchObject({ number, size: 7, total: 60 });
        expect(page.items.map((r) => r.id)).toEqual(order.slice((number - 1) * 7, number * 7));
        expect(page.next_cursor === null).toBe(number === 9);
      }
      const third = await developer.runbooks.list({ workspace_id: ws, sort, page: { number: 3, size: 7 } });
      const fourth = await developer.runbooks.list({
        workspace_id: ws,
        sort,
        page: { size: 7, after: third.next_cursor ?? '' },
      });
      expect(fourth).toMatchObject({ number: 4, total: 60 });
      expect(fourth.items.map((r) => r.id)).toEqual(order.slice(21, 28));
      const past = await developer.runbooks.list({ workspace_id: ws, sort, page: { number: 10, size: 7 } });
      expect(past).toMatchObject({ items: [], number: 10, total: 60, next_cursor: null });
      // Filters apply to the skipped entries too: page 2 of the templates is templates only.
      const templates = expectedOrder(
        runbooks.filter((r) => r.is_template),
        sort,
      );
      const second = await developer.runbooks.list({
        workspace_id: ws,
        sort,
        is_template: true,
        page: { number: 2, size: 4 },
      });
      expect(second).toMatchObject({ number: 2, total: 10 });
      expect(second.items.map((r) => r.id)).toEqual(templates.slice(4, 8));
    });

    it('filters and counts', async () => {
      const templates = await developer.runbooks.list({ workspace_id: ws, is_template: true, page: { size: 100 } });
      expect(templates.total).toBe(10);
      expect(templates.items.every((r) => r.is_template && r.workspace_id === ws)).toBe(true);
      expect((await developer.runbooks.list({ workspace_id: ws, is_template: false, page: {} })).total).toBe(50);
      expect((await developer.runbooks.list({ workspace_id: ws, stage: 'active', page: {} })).total).toBe(0);
      expect((await developer.runbooks.list({ workspace_id: ws, stage: 'planning', page: {} })).total).toBe(60);
      expect((await developer.runbooks.list({ workspace_id: '999999', page: {} })).total).toBe(0);
      expect((await developer.runbooks.list({ page: {} })).total).toBeGreaterThan(60);
    });

    it('rejects a cursor it did not produce with 400 invalid_cursor', async () => {
      for (const after of ['not-a-cursor', Buffer.from('[1,2]').toString('base64url')]) {
        const error = await appErrorOf(developer.runbooks.list({ workspace_id: ws, page: { after } }));
        expect(error).toMatchObject({ status: 400, code: 'invalid_cursor' });
        expect(error.errors[0]?.source).toEqual({ parameter: 'page[after]' });
      }
      expect(await codeOf(developer.runbooks.list({ page: { after: 'x' } }))).toBe('BAD_REQUEST');
    });

    it.runIf(dialect === 'mysql')(
      'seeks cursor pages on MySQL: a range on (workspace, sort column, id), not a walk from the workspace start',
      async () => {
        // Enough rows that MariaDB, left alone, reads a deep cursor page by `ref` on workspace_id and
        // steps through every earlier entry (KeysetSort.seekIndex in @runbook/db).
        const deep = (await manager.workspaces.create({ name: 'Deep' })).id;
        await insertMany(kit, 'runbooks', 6000, (i) => ({
          workspace_id: Number(deep),
          name: `Deep ${String(i).padStart(5, '0')}`,
          description: '',
          is_template: 0,
          run_type: null,
          created_at: kit.clock.now,
          updated_at: kit.clock.now,
        }));
        for (const [sort, keyParts] of [
          ['id', ['workspace_id', 'id']],
          ['name', ['workspace_id', 'name']],
          ['-created_at', ['workspace_id', 'created_at']],
        ] as const) {
          await expectCursorPagesToSeek(kit, 'runbooks', keyParts, (after) =>
            developer.runbooks.list({ workspace_id: deep, sort, page: { size: 25, ...(after ? { after } : {}) } }),
          );
        }
        // Across workspaces (a global reader): the (name, id) and (created_at, id) indexes, no hint needed.
        for (const [sort, keyParts] of [
          ['name', ['name', 'id']],
          ['-created_at', ['created_at', 'id']],
        ] as const) {
          await expectCursorPagesToSeek(
            kit,
            'runbooks',
            keyParts,
            (after) => manager.runbooks.list({ sort, page: { size: 25, ...(after ? { after } : {}) } }),
            false,
          );
        }
      },
    );

    it('reads a deep page[number] through the sort index for the ids alone, then the rows by id', async () => {
      const deep = (await manager.workspaces.create({ name: 'Deep offsets' })).id;
      await insertMany(kit, 'runbooks', 6000, (i) => ({
        workspace_id: Number(deep),
        name: `Deep ${String((i * 7919) % 6000).padStart(5, '0')}`,
        description: '',
        is_template: 0,
        run_type: null,
        created_at: kit.clock.now + (i % 97),
        updated_at: kit.clock.now,
      }));
      for (const [sort, column, direction, index] of [
        ['id', 'id', 'asc', 'runbooks_workspace_id'],
        ['name', 'name', 'asc', 'runbooks_workspace_name_id'],
        ['-created_at', 'created_at', 'desc', 'runbooks_workspace_created_id'],
      ] as const) {
        const page = await developer.runbooks.list({ workspace_id: deep, sort, page: { number: 200, size: 25 } });
        expect(page).toMatchObject({ number: 200, total: 6000 });
        // The same page as a plain OFFSET reads it.
        const plain = await kit.deps.db
          .selectFrom('runbooks')
          .select('id')
          .where('workspace_id', '=', Number(deep))
          .orderBy(column, direction)
          .orderBy('id', direction)
          .limit(25)
          .offset(199 * 25)
          .execute();
        expect(page.items.map((r) => r.id)).toEqual(plain.map((r) => String(r.id)));
        const offsetPage = (sql: string) => sql.startsWith('select *') && sql.includes(' offset ');
        if (dialect === 'mysql') {
          // Before: one `range` over whole rows of the workspace up to the page. Now a derived table
          // of ids read from the sort's index alone (`Using index`), then each row by primary key.
          const plan = (await explainLatest(kit, offsetPage)) as ExplainRow[];
          const ids = plan.find((row) => row.select_type === 'DERIVED');
          expect(ids, JSON.stringify(plan)).toMatchObject({ table: 'runbooks', key: index });
          expect(ids?.Extra, JSON.stringify(plan)).toContain('Using index');
          const rows = plan.find((row) => row.select_type !== 'DERIVED' && row.table === 'runbooks');
          expect(rows, JSON.stringify(plan)).toMatchObject({ type: 'eq_ref', key: 'PRIMARY' });
        } else {
          // SQLite: the ids (a covering scan of the sort's index) drive the loop, each row found by rowid.
          const plan = ((await explainLatest(kit, offsetPage)) as QueryPlanRow[]).map((row) => row.detail);
          expect(plan, JSON.stringify(plan)).toContain(
            `SEARCH runbooks USING COVERING INDEX ${index} (workspace_id=?)`,
          );
          const scan = plan.findIndex((detail) => /^SCAN .*page_ids/.test(detail));
          const byRowid = plan.findIndex((detail) => /^SEARCH runbooks USING INTEGER PRIMARY KEY/.test(detail));
          expect(scan, JSON.stringify(plan)).toBeGreaterThanOrEqual(0);
          expect(byRowid, JSON.stringify(plan)).toBeGreaterThan(scan);
        }
      }
    });

    it('costs one database round trip per page, counting included', async () => {
      for (const sort of SORTS) {
        kit.queries.count = 0;
        const first = await developer.runbooks.list({ workspace_id: ws, sort, page: { size: 10 } });
        expect(first.total).toBeGreaterThan(10);
        expect(kit.queries.count).toBe(1);
        kit.queries.count = 0;
        await developer.runbooks.list({ workspace_id: ws, sort, page: { size: 10, after: first.next_cursor ?? '' } });
        expect(kit.queries.count).toBe(1);
        kit.queries.count = 0;
        await developer.runbooks.list({ workspace_id: ws, sort, page: { number: 3, size: 10 } });
        expect(kit.queries.count).toBe(1);
      }
    });
  });
});
