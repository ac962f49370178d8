import type { RunbookDto } from '@runbook/contracts';
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appErrorOf,
  type CatalogCaller,
  type CatalogTestKit,
  codeOf,
  createCatalogTestKit,
  expectCursorPagesToSeek,
  insertMany,
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

    it('serves page[number] as an offset', async () => {
      const order = expectedOrder(runbooks, '-name');
      const third = await developer.runbooks.list({ workspace_id: ws, sort: '-name', page: { number: 3, size: 7 } });
      expect(third).toMatchObject({ number: 3, total: 60 });
      expect(third.items.map((r) => r.id)).toEqual(order.slice(14, 21));
      const fourth = await developer.runbooks.list({
        workspace_id: ws,
        sort: '-name',
        page: { size: 7, after: third.next_cursor ?? '' },
      });
      expect(fourth.items.map((r) => r.id)).toEqual(order.slice(21, 28));
      const last = await developer.runbooks.list({ workspace_id: ws, sort: '-name', page: { number: 9, size: 7 } });
      expect(last.items.map((r) => r.id)).toEqual(order.slice(56));
      expect(last.next_cursor).toBeNull();
      expect((await developer.runbooks.list({ workspace_id: ws, page: { number: 10, size: 7 } })).items).toEqual([]);
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

    it('costs one database round trip per page, counting included', async () => {
      for (const sort of SORTS) {
        kit.queries.count = 0;
        const first = await developer.runbooks.list({ workspace_id: ws, sort, page: { size: 10 } });
        expect(first.total).toBeGreaterThan(10);
        expect(kit.queries.count).toBe(1);
        kit.queries.count = 0;
        await developer.runbooks.list({ workspace_id: ws, sort, page: { size: 10, after: first.next_cursor ?? '' } });
        expect(kit.queries.count).toBe(1);
      }
    });
  });
});
