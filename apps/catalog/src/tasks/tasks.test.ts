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

describe.each(await testDialects())('tasks on %s', (dialect) => {
  let kit: CatalogTestKit;
  let manager: CatalogCaller;
  let developer: CatalogCaller;
  let ws: string;
  let otherWs: string;
  let runbook: string;
  let otherRunbook: string;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
    manager = kit.as(['developer', 'workspace_manager']);
    developer = kit.as(['developer']);
    ws = (await manager.workspaces.create({ name: 'Tasks' })).id;
    otherWs = (await manager.workspaces.create({ name: 'Other' })).id;
    runbook = (await manager.runbooks.create({ workspace_id: ws, name: 'Main' })).id;
    otherRunbook = (await manager.runbooks.create({ workspace_id: otherWs, name: 'Elsewhere' })).id;
  });
  afterAll(() => kit.destroy());

  const newTask = (name: string, predecessor_ids: string[] = [], runbook_id = runbook) =>
    manager.tasks.create({ runbook_id, name, predecessor_ids });
  const predecessorsOf = async (id: string) => (await developer.tasks.get({ runbook_id: runbook, id })).predecessor_ids;

  it('creates, gets, lists, updates and deletes tasks', async () => {
    const a = await manager.tasks.create({ runbook_id: runbook, name: 'Stop writes' });
    expect(a).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      runbook_id: runbook,
      name: 'Stop writes',
      description: '',
      stage: 'not_startable',
      completion_type: null,
      duration: 0,
      auto_start: false,
      auto_finish: false,
      start_actual: null,
      end_actual: null,
      start_planned: null,
      end_planned: null,
      custom_field_values: [],
      execution_status: null,
      last_error: null,
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: '2026-11-21T12:00:00.000Z',
      predecessor_ids: [],
      successor_ids: [],
      assignees: [],
      integration_id: null,
    });
    const b = await manager.tasks.create({
      runbook_id: runbook,
      name: 'Promote standby',
      description: 'Run the promote script',
      duration: 300,
      auto_start: true,
      predecessor_ids: [a.id, a.id],
    });
    expect(b).toMatchObject({ duration: 300, auto_start: true, auto_finish: false, predecessor_ids: [a.id] });
    expect(await developer.tasks.get({ runbook_id: runbook, id: b.id })).toEqual(b);

    const listed = await developer.tasks.list({ runbook_id: runbook, page: {} });
    expect(listed).toMatchObject({ total: 2, number: 1, next_cursor: null });
    expect(listed.items).toEqual([{ ...a, successor_ids: [b.id] }, b]);
    expect((await developer.tasks.list({ runbook_id: runbook, stage: 'complete', page: {} })).total).toBe(0);

    kit.clock.now += 1000;
    const updated = await manager.tasks.update({
      runbook_id: runbook,
      id: b.id,
      name: 'Promote',
      duration: 60,
      auto_finish: true,
    });
    expect(updated).toEqual({
      ...b,
      name: 'Promote',
      duration: 60,
      auto_finish: true,
      updated_at: '2026-11-21T12:00:01.000Z',
    });
    expect(
      (await manager.tasks.update({ runbook_id: runbook, id: b.id, predecessor_ids: [] })).predecessor_ids,
    ).toEqual([]);
    await manager.tasks.update({ runbook_id: runbook, id: b.id, predecessor_ids: [a.id] });

    await manager.tasks.delete({ runbook_id: runbook, id: a.id });
    expect(await codeOf(developer.tasks.get({ runbook_id: runbook, id: a.id }))).toBe('NOT_FOUND');
    expect(await predecessorsOf(b.id)).toEqual([]);
    expect(await codeOf(manager.tasks.delete({ runbook_id: runbook, id: a.id }))).toBe('NOT_FOUND');
  });

  it('answers 404 for tasks of another runbook and unknown runbooks, 422 with pointers', async () => {
    const mine = await newTask('Mine');
    const args = { runbook_id: otherRunbook, id: mine.id };
    expect(await codeOf(developer.tasks.get(args))).toBe('NOT_FOUND');
    expect(await codeOf(manager.tasks.update({ ...args, name: 'stolen' }))).toBe('NOT_FOUND');
    expect(await codeOf(manager.tasks.delete(args))).toBe('NOT_FOUND');
    expect((await developer.tasks.get({ runbook_id: runbook, id: mine.id })).name).toBe('Mine');

    expect(await codeOf(developer.tasks.list({ runbook_id: '999999', page: {} }))).toBe('NOT_FOUND');
    expect(await codeOf(manager.tasks.create({ runbook_id: '999999', name: 'x' }))).toBe('NOT_FOUND');
    const empty = await manager.runbooks.create({ workspace_id: ws, name: 'Empty' });
    expect(await developer.tasks.list({ runbook_id: empty.id, page: {} })).toEqual({
      items: [],
      number: 1,
      size: 25,
      total: 0,
      next_cursor: null,
    });

    const invalid = await appErrorOf(
      manager.tasks.create({ runbook_id: runbook, name: '', duration: -1, predecessor_ids: ['abc'] }),
    );
    expect(invalid.status).toBe(422);
    expect(invalid.errors.map((e) => e.source?.pointer).sort()).toEqual(['/duration', '/name', '/predecessor_ids/0']);
  });

  it('keeps predecessors within the runbook', async () => {
    const foreign = await newTask('Foreign', [], otherRunbook);
    const local = await newTask('Local');
    const error = await appErrorOf(newTask('Bad', [local.id, foreign.id, '999999']));
    expect(error).toMatchObject({ status: 422, code: 'invalid_predecessor' });
    expect(error.errors[0]?.source).toEqual({ pointer: '/data/relationships/predecessors' });
    expect(error.errors[0]?.meta).toEqual({ invalid_ids: [foreign.id, '999999'] });
    expect(error.message).toContain(foreign.id);
    expect(
      (await developer.tasks.list({ runbook_id: runbook, page: { size: 100 } })).items.map((t) => t.name),
    ).not.toContain('Bad');

    const update = manager.tasks.update({ runbook_id: runbook, id: local.id, predecessor_ids: [foreign.id] });
    expect((await appErrorOf(update)).code).toBe('invalid_predecessor');
    expect(await predecessorsOf(local.id)).toEqual([]);
  });

  it('rejects a cycle, naming it, and writes nothing', async () => {
    const a = await newTask('a');
    const b = await newTask('b', [a.id]);
    const c = await newTask('c', [b.id]);
    const d = await newTask('d', [b.id, c.id]);
    const linksBefore = await kit.deps.db
      .selectFrom('task_predecessors')
      .selectAll()
      .orderBy('task_id')
      .orderBy('predecessor_id')
      .execute();

    kit.clock.now += 1000;
    const error = await appErrorOf(
      manager.tasks.update({ runbook_id: runbook, id: a.id, name: 'renamed', predecessor_ids: [d.id] }),
    );
    expect(error).toMatchObject({ status: 422, code: 'predecessor_cycle' });
    expect(error.errors[0]?.meta).toEqual({ cycle: [a.id, d.id, b.id] });
    expect(error.errors[0]?.source).toEqual({ pointer: '/data/relationships/predecessors' });
    for (const id of [a.id, d.id, b.id]) expect(error.message).toContain(id);

    expect(await developer.tasks.get({ runbook_id: runbook, id: a.id })).toEqual({ ...a, successor_ids: [b.id] });
    const linksAfter = await kit.deps.db
      .selectFrom('task_predecessors')
      .selectAll()
      .orderBy('task_id')
      .orderBy('predecessor_id')
      .execute();
    expect(linksAfter).toEqual(linksBefore);

    const self = await appErrorOf(
      manager.tasks.update({ runbook_id: runbook, id: b.id, predecessor_ids: [a.id, b.id] }),
    );
    expect(self.errors[0]?.meta).toEqual({ cycle: [b.id] });
    expect(await predecessorsOf(b.id)).toEqual([a.id]);

    // Re-wiring without a cycle is fine: c may wait for a directly too.
    expect(
      (await manager.tasks.update({ runbook_id: runbook, id: c.id, predecessor_ids: [b.id, a.id] })).predecessor_ids,
    ).toEqual([a.id, b.id].sort((x, y) => Number(x) - Number(y)));
  });

  it('lets developers read and workspace managers of the runbook\u2019s workspace write', async () => {
    const task = await newTask('Guarded');
    const ref = { runbook_id: runbook, id: task.id };
    expect(await codeOf(developer.tasks.get(ref))).toBe('ok');
    expect(await codeOf(developer.tasks.list({ runbook_id: runbook, page: {} }))).toBe('ok');
    expect(await codeOf(developer.tasks.create({ runbook_id: runbook, name: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(developer.tasks.update({ ...ref, name: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(developer.tasks.delete(ref))).toBe('FORBIDDEN');
    expect(await codeOf(developer.tasks.update({ runbook_id: runbook, id: '999999', name: 'x' }))).toBe('NOT_FOUND');

    const managerOfOther = kit.as(['developer', { role: 'workspace_manager', workspace_id: otherWs }]);
    expect(await codeOf(managerOfOther.tasks.create({ runbook_id: runbook, name: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(managerOfOther.tasks.update({ ...ref, name: 'x' }))).toBe('FORBIDDEN');
    expect(await codeOf(managerOfOther.tasks.delete(ref))).toBe('FORBIDDEN');
    expect(await codeOf(managerOfOther.tasks.create({ runbook_id: otherRunbook, name: 'ok' }))).toBe('ok');

    const managerOfWs = kit.as(['developer', { role: 'workspace_manager', workspace_id: ws }]);
    expect(await codeOf(managerOfWs.tasks.update({ ...ref, name: 'ok' }))).toBe('ok');
    expect(await codeOf(managerOfWs.tasks.delete(ref))).toBe('ok');
  });

  it('pages tasks with predecessors in at most three queries', async () => {
    const rb = (await manager.runbooks.create({ workspace_id: ws, name: 'Many tasks' })).id;
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const preds = ids.slice(-2);
      ids.push((await newTask(`t${i}`, preds, rb)).id);
    }
    kit.queries.count = 0;
    const first = await developer.tasks.list({ runbook_id: rb, page: { size: 10 } });
    expect(kit.queries.count).toBeLessThanOrEqual(3);
    const seen = [...first.items];
    let after = first.next_cursor;
    while (after) {
      kit.queries.count = 0;
      const page = await developer.tasks.list({ runbook_id: rb, page: { size: 10, after } });
      expect(kit.queries.count).toBeLessThanOrEqual(2);
      seen.push(...page.items);
      after = page.next_cursor;
    }
    expect(seen.map((t) => t.id)).toEqual(ids);
    expect(seen.map((t) => t.predecessor_ids)).toEqual(ids.map((_, i) => ids.slice(Math.max(0, i - 2), i)));

    kit.queries.count = 0;
    await developer.tasks.list({ runbook_id: otherRunbook, stage: 'complete', page: {} });
    expect(kit.queries.count).toBeLessThanOrEqual(3);
  });

  it.runIf(dialect === 'mysql')(
    'seeks cursor pages on MySQL: a range on (runbook[, stage], sort column, id), not a walk from the runbook start',
    async () => {
      const rb = (await manager.runbooks.create({ workspace_id: ws, name: 'Ten thousand steps' })).id;
      await insertMany(kit, 'tasks', 6000, (i) => ({
        runbook_id: Number(rb),
        name: `Step ${String(i).padStart(5, '0')}`,
        description: '',
        stage: 'not_startable',
        created_at: kit.clock.now,
        updated_at: kit.clock.now,
      }));
      for (const [query, keyParts] of [
        [{ sort: 'id' }, ['runbook_id', 'id']],
        [{ sort: 'name' }, ['runbook_id', 'name']],
        [{ sort: '-created_at' }, ['runbook_id', 'created_at']],
        [{ sort: 'id', stage: 'not_startable' }, ['runbook_id', 'stage']],
      ] as const) {
        await expectCursorPagesToSeek(kit, 'tasks', keyParts, (after) =>
          developer.tasks.list({ runbook_id: rb, ...query, page: { size: 25, ...(after ? { after } : {}) } }),
        );
      }
    },
  );

  it('deletes a runbook with its tasks and their links', async () => {
    const rb = (await manager.runbooks.create({ workspace_id: ws, name: 'Doomed' })).id;
    const first = await newTask('first', [], rb);
    await newTask('second', [first.id], rb);
    await manager.runbooks.delete({ id: rb });
    const tasks = await kit.deps.db.selectFrom('tasks').select('id').where('runbook_id', '=', Number(rb)).execute();
    expect(tasks).toEqual([]);
    const links = await kit.deps.db
      .selectFrom('task_predecessors')
      .selectAll()
      .where('predecessor_id', '=', Number(first.id))
      .execute();
    expect(links).toEqual([]);
    expect(await codeOf(developer.tasks.list({ runbook_id: rb, page: {} }))).toBe('NOT_FOUND');
  });
});
