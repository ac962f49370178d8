import { testDialects } from '@runbook/db/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appErrorOf, type CatalogCaller, type CatalogTestKit, codeOf, createCatalogTestKit } from '../test-support.js';

describe.each(await testDialects())('runs on %s', (dialect) => {
  let kit: CatalogTestKit;
  let manager: CatalogCaller;
  let developer: CatalogCaller;
  let ws: string;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
    manager = kit.as(['developer', 'workspace_manager']);
    developer = kit.as(['developer']);
    ws = (await manager.workspaces.create({ name: 'Runs' })).id;
  });
  afterAll(() => kit.destroy());

  const newRunbook = async (name = 'Run') => (await manager.runbooks.create({ workspace_id: ws, name })).id;
  const task = (
    runbook_id: string,
    name: string,
    predecessor_ids: string[] = [],
    extra: {
      auto_start?: boolean;
      auto_finish?: boolean;
      assignees?: Array<{ type: 'user' | 'team'; id: string }>;
    } = {},
  ) => manager.tasks.create({ runbook_id, name, predecessor_ids, ...extra }).then((t) => t.id);
  const stages = async (runbook_id: string) =>
    Object.fromEntries(
      (await developer.tasks.list({ runbook_id, page: { size: 100 } })).items.map((t) => [
        t.name,
        t.completion_type ?? t.stage,
      ]),
    );

  it('starts a run: roots startable, successors wait for all their predecessors, the run completes', async () => {
    const rb = await newRunbook('Diamond');
    const a = await task(rb, 'a');
    const b = await task(rb, 'b', [a]);
    const c = await task(rb, 'c', [a]);
    const d = await task(rb, 'd', [b, c]);
    const e = await task(rb, 'e');

    kit.clock.now += 1000;
    const started = await manager.runbooks.start({ id: rb, run_type: 'rehearsal' });
    expect(started).toMatchObject({ stage: 'active', run_type: 'rehearsal' });
    expect(await stages(rb)).toEqual({
      a: 'startable',
      b: 'not_startable',
      c: 'not_startable',
      d: 'not_startable',
      e: 'startable',
    });

    const ref = (id: string) => ({ runbook_id: rb, id });
    const blocked = await appErrorOf(manager.tasks.start(ref(d)));
    expect(blocked).toMatchObject({ status: 422, code: 'predecessors_incomplete' });
    expect(blocked.errors[0]?.meta).toEqual({ incomplete_predecessor_ids: [b, c] });
    expect((await appErrorOf(manager.tasks.finish(ref(a)))).code).toBe('invalid_transition');

    const inProgress = await manager.tasks.start(ref(a));
    expect(inProgress).toMatchObject({ stage: 'in_progress', start_actual: '2026-11-21T12:00:01.000Z' });
    expect((await appErrorOf(manager.tasks.start(ref(a)))).code).toBe('invalid_transition');
    kit.clock.now += 1000;
    const done = await manager.tasks.finish(ref(a));
    expect(done).toMatchObject({
      stage: 'complete',
      completion_type: 'complete_normal',
      end_actual: '2026-11-21T12:00:02.000Z',
      successor_ids: [b, c],
    });
    expect(await stages(rb)).toMatchObject({ b: 'startable', c: 'startable', d: 'not_startable' });

    await manager.tasks.start(ref(b));
    await manager.tasks.finish(ref(b));
    expect((await stages(rb)).d).toBe('not_startable');
    await manager.tasks.start(ref(c));
    await manager.tasks.finish(ref(c));
    expect((await stages(rb)).d).toBe('startable');
    await manager.tasks.start(ref(d));
    await manager.tasks.finish(ref(d));
    expect((await developer.runbooks.get({ id: rb })).stage).toBe('active');
    await manager.tasks.start(ref(e));
    await manager.tasks.finish(ref(e));
    expect((await developer.runbooks.get({ id: rb })).stage).toBe('complete');
    expect((await appErrorOf(manager.tasks.start(ref(e)))).code).toBe('runbook_not_active');

    const events = await developer.runbooks.events({ id: rb, page: { size: 100 } });
    expect(events.items[0]).toMatchObject({
      kind: 'runbook_started',
      from_stage: 'planning',
      to_stage: 'active',
      run_type: 'rehearsal',
      actor: { type: 'user' },
      created_at: '2026-11-21T12:00:01.000Z',
    });
    expect(events.items.at(-1)).toMatchObject({ kind: 'runbook_completed', actor: { type: 'system', id: null } });
    const ofD = await developer.runbooks.events({ id: rb, task_id: d, page: {} });
    expect(ofD.items.map((ev) => ev.kind)).toEqual(['task_startable', 'task_started', 'task_completed']);
    expect(ofD.items[2]).toMatchObject({
      from_stage: 'in_progress',
      to_stage: 'complete',
      completion_type: 'complete_normal',
    });
  });

  it('answers invalid runbook transitions with 422 invalid_transition and freezes the graph during a run', async () => {
    const rb = await newRunbook();
    const a = await task(rb, 'a');
    for (const action of ['pause', 'resume', 'cancel'] as const) {
      const e = await appErrorOf(manager.runbooks[action]({ id: rb }));
      expect(e).toMatchObject({ status: 422, code: 'invalid_transition' });
      expect(e.errors[0]?.meta).toEqual({ stage: 'planning', action });
    }
    expect((await appErrorOf(manager.tasks.start({ runbook_id: rb, id: a }))).code).toBe('runbook_not_active');
    await manager.runbooks.start({ id: rb });
    expect((await appErrorOf(manager.runbooks.start({ id: rb }))).code).toBe('invalid_transition');
    expect((await appErrorOf(manager.runbooks.resume({ id: rb }))).code).toBe('invalid_transition');

    expect((await appErrorOf(manager.tasks.create({ runbook_id: rb, name: 'late' }))).code).toBe(
      'runbook_not_editable',
    );
    expect((await appErrorOf(manager.tasks.delete({ runbook_id: rb, id: a }))).code).toBe('runbook_not_editable');
    const rewire = manager.tasks.update({ runbook_id: rb, id: a, predecessor_ids: [] });
    expect((await appErrorOf(rewire)).code).toBe('runbook_not_editable');
    // Attributes stay editable during a run.
    expect((await manager.tasks.update({ runbook_id: rb, id: a, name: 'renamed' })).name).toBe('renamed');

    expect(await codeOf(manager.runbooks.start({ id: '999999' }))).toBe('NOT_FOUND');
    expect(await codeOf(developer.runbooks.pause({ id: rb }))).toBe('FORBIDDEN');
  });

  it('completes a runbook without tasks as soon as it starts', async () => {
    const rb = await newRunbook('Empty');
    expect((await manager.runbooks.start({ id: rb })).stage).toBe('complete');
  });

  it('auto-starts and auto-finishes (complete_auto), cascading through the graph', async () => {
    const rb = await newRunbook('Auto');
    const a = await task(rb, 'a');
    const b = await task(rb, 'b', [a], { auto_start: true, auto_finish: true });
    const c = await task(rb, 'c', [b], { auto_start: true });
    await task(rb, 'd', [c], { auto_start: true, auto_finish: true });
    await manager.runbooks.start({ id: rb });
    await manager.tasks.start({ runbook_id: rb, id: a });
    await manager.tasks.finish({ runbook_id: rb, id: a });
    expect(await stages(rb)).toEqual({
      a: 'complete_normal',
      b: 'complete_auto',
      c: 'in_progress',
      d: 'not_startable',
    });
    const bEvents = await developer.runbooks.events({ id: rb, task_id: b, page: {} });
    expect(bEvents.items.map((e) => [e.kind, e.actor.type])).toEqual([
      ['task_startable', 'system'],
      ['task_started', 'system'],
      ['task_completed', 'system'],
    ]);
    await manager.tasks.finish({ runbook_id: rb, id: c });
    expect((await stages(rb)).d).toBe('complete_auto');
    expect((await developer.runbooks.get({ id: rb })).stage).toBe('complete');
  });

  it('continues long auto cascades in jobs, in bounded transactions', async () => {
    kit.deps.orchestration.cascadeBudget = 3;
    try {
      const rb = await newRunbook('Long chain');
      let previous: string[] = [];
      for (let i = 0; i < 10; i++) {
        const id = await task(rb, `t${i}`, previous, { auto_start: true, auto_finish: true });
        previous = [id];
      }
      await manager.runbooks.start({ id: rb });
      const midway = await stages(rb);
      expect(Object.values(midway).filter((s) => s === 'complete_auto')).toHaveLength(3);
      expect((await developer.runbooks.get({ id: rb })).stage).toBe('active');
      expect(await kit.worker.runDue()).toBeGreaterThanOrEqual(3);
      expect(Object.values(await stages(rb)).every((s) => s === 'complete_auto')).toBe(true);
      expect((await developer.runbooks.get({ id: rb })).stage).toBe('complete');
    } finally {
      kit.deps.orchestration.cascadeBudget = 1000;
    }
  });

  it('skips with a required comment, releasing successors', async () => {
    const rb = await newRunbook('Skips');
    const a = await task(rb, 'a');
    const b = await task(rb, 'b', [a]);
    await manager.runbooks.start({ id: rb });
    const noComment = await appErrorOf(manager.tasks.skip({ runbook_id: rb, id: b, comment: '  ' }));
    expect(noComment.status).toBe(422);
    expect(noComment.errors[0]?.source?.pointer).toBe('/comment');
    // A task may be skipped before its predecessors complete.
    const skipped = await manager.tasks.skip({ runbook_id: rb, id: b, comment: 'Not needed this time' });
    expect(skipped).toMatchObject({ stage: 'complete', completion_type: 'complete_skipped' });
    const comments = await developer.comments.list({ runbook_id: rb, task_id: b, page: {} });
    expect(comments.items.map((c) => c.body)).toEqual(['Not needed this time']);
    const ev = await developer.runbooks.events({ id: rb, task_id: b, page: {} });
    expect(ev.items.at(-1)).toMatchObject({ completion_type: 'complete_skipped', message: 'Not needed this time' });
    expect((await appErrorOf(manager.tasks.skip({ runbook_id: rb, id: b, comment: 'again' }))).code).toBe(
      'invalid_transition',
    );
    await manager.tasks.skip({ runbook_id: rb, id: a, comment: 'also not needed' });
    expect((await developer.runbooks.get({ id: rb })).stage).toBe('complete');
  });

  it('pauses (nothing starts), resumes (waiting auto starts go), cancels', async () => {
    const rb = await newRunbook('Pausing');
    const a = await task(rb, 'a');
    await task(rb, 'b', [a], { auto_start: true });
    const c = await task(rb, 'c');
    await manager.runbooks.start({ id: rb });
    await manager.tasks.start({ runbook_id: rb, id: a });
    const paused = await manager.runbooks.pause({ id: rb, message: 'waiting for approval' });
    expect(paused.stage).toBe('paused');
    expect((await appErrorOf(manager.tasks.start({ runbook_id: rb, id: c }))).code).toBe('runbook_not_active');
    // Work in hand can still be finished; its successor becomes startable but does not auto-start.
    await manager.tasks.finish({ runbook_id: rb, id: a });
    expect((await stages(rb)).b).toBe('startable');
    await manager.runbooks.resume({ id: rb });
    expect((await stages(rb)).b).toBe('in_progress');
    const canceled = await manager.runbooks.cancel({ id: rb, message: 'aborted' });
    expect(canceled.stage).toBe('canceled');
    expect((await appErrorOf(manager.tasks.start({ runbook_id: rb, id: c }))).code).toBe('runbook_not_active');
    const events = (await developer.runbooks.events({ id: rb, page: { size: 100 } })).items.filter((e) => !e.task_id);
    expect(events.map((e) => [e.kind, e.message])).toEqual([
      ['runbook_started', null],
      ['runbook_paused', 'waiting for approval'],
      ['runbook_resumed', null],
      ['runbook_canceled', 'aborted'],
    ]);
  });

  it('lets assigned users act on their tasks, and only them besides managers', async () => {
    const rb = await newRunbook('Assigned');
    const credential = kit.userWith(['developer']);
    const assignedUser = (await kit.deps.authenticate(credential)) as { user_id: string };
    const mine = await task(rb, 'mine', [], {
      assignees: [
        { type: 'team', id: '7' },
        { type: 'user', id: assignedUser.user_id },
      ],
    });
    const other = await task(rb, 'other');
    const unknown = await appErrorOf(
      manager.tasks.update({
        runbook_id: rb,
        id: other,
        assignees: [
          { type: 'user', id: '900001' },
          { type: 'team', id: '7' },
          { type: 'team', id: '900002' },
        ],
      }),
    );
    expect(unknown).toMatchObject({ status: 422, code: 'invalid_assignees' });
    expect(unknown.errors[0]?.meta).toEqual({
      invalid: [
        { type: 'user', id: '900001' },
        { type: 'team', id: '900002' },
      ],
    });
    expect((await developer.tasks.get({ runbook_id: rb, id: mine })).assignees).toEqual([
      { type: 'user', id: assignedUser.user_id },
      { type: 'team', id: '7' },
    ]);
    await manager.runbooks.start({ id: rb });
    const me = kit.caller(credential);
    expect(await codeOf(me.tasks.start({ runbook_id: rb, id: mine }))).toBe('ok');
    expect(await codeOf(me.tasks.finish({ runbook_id: rb, id: mine }))).toBe('ok');
    expect(await codeOf(me.tasks.start({ runbook_id: rb, id: other }))).toBe('FORBIDDEN');
    expect(await codeOf(developer.tasks.skip({ runbook_id: rb, id: other, comment: 'x' }))).toBe('FORBIDDEN');
  });

  it('lets members of an assigned team act, asking identity only when the team could decide', async () => {
    const rb = await newRunbook('Team tasks');
    const memberCredential = kit.userWith(['developer']);
    const member = (await kit.deps.authenticate(memberCredential)) as { user_id: string };
    const outsider = kit.userWith(['developer']);
    kit.teams.members.set('41', new Set([member.user_id]));
    kit.teams.members.set('42', new Set());
    const teamTask = await task(rb, 'team', [], {
      assignees: [
        { type: 'team', id: '42' },
        { type: 'team', id: '41' },
      ],
    });
    const otherTeamTask = await task(rb, 'other team', [], { assignees: [{ type: 'team', id: '42' }] });
    const directTask = await task(rb, 'direct', [], {
      assignees: [
        { type: 'user', id: member.user_id },
        { type: 'team', id: '42' },
      ],
    });
    const unassigned = await task(rb, 'unassigned');
    const later = await task(rb, 'later', [], { assignees: [{ type: 'team', id: '41' }] });
    await manager.runbooks.start({ id: rb });
    const me = kit.caller(memberCredential);

    kit.teams.asked = 0;
    expect(await codeOf(me.tasks.start({ runbook_id: rb, id: teamTask }))).toBe('ok');
    expect(kit.teams.asked).toBe(1);
    expect(await codeOf(me.tasks.finish({ runbook_id: rb, id: teamTask }))).toBe('ok');
    expect((await developer.tasks.get({ runbook_id: rb, id: teamTask })).stage).toBe('complete');
    expect(await codeOf(me.tasks.start({ runbook_id: rb, id: otherTeamTask }))).toBe('FORBIDDEN');
    expect(await codeOf(kit.caller(outsider).tasks.skip({ runbook_id: rb, id: teamTask, comment: 'x' }))).toBe(
      'FORBIDDEN',
    );
    expect(kit.teams.asked).toBe(4);
    // Directly assigned users, managers and tasks without teams need no question to identity.
    expect(await codeOf(me.tasks.start({ runbook_id: rb, id: directTask }))).toBe('ok');
    expect(await codeOf(manager.tasks.start({ runbook_id: rb, id: otherTeamTask }))).toBe('ok');
    expect(await codeOf(me.tasks.start({ runbook_id: rb, id: unassigned }))).toBe('FORBIDDEN');
    expect(kit.teams.asked).toBe(4);
    // Leaving the team takes the right away with it.
    kit.teams.members.get('41')?.delete(member.user_id);
    expect(await codeOf(me.tasks.start({ runbook_id: rb, id: later }))).toBe('FORBIDDEN');
  });

  it('answers 404, not 403, for task actions in a workspace the user cannot see', async () => {
    const rb = await newRunbook('Hidden');
    const t = await task(rb, 't');
    await manager.runbooks.start({ id: rb });
    const elsewhere = kit.as([{ role: 'developer', workspace_id: String(Number(ws) + 1000) }]);
    expect(await codeOf(elsewhere.tasks.start({ runbook_id: rb, id: t }))).toBe('NOT_FOUND');
    expect(await codeOf(developer.tasks.start({ runbook_id: rb, id: t }))).toBe('FORBIDDEN');
  });

  it('comments on runbooks and tasks', async () => {
    const rb = await newRunbook('Talk');
    const t = await task(rb, 't');
    kit.clock.now += 1000;
    const c1 = await developer.comments.create({ runbook_id: rb, body: 'Kick-off at 10:00' });
    expect(c1).toMatchObject({ runbook_id: rb, task_id: null, body: 'Kick-off at 10:00', author: { type: 'user' } });
    await developer.comments.create({ runbook_id: rb, task_id: t, body: 'On it' });
    expect((await developer.comments.list({ runbook_id: rb, page: {} })).items.map((c) => c.body)).toEqual([
      'Kick-off at 10:00',
      'On it',
    ]);
    expect((await developer.comments.list({ runbook_id: rb, task_id: t, page: {} })).total).toBe(1);
    expect(await codeOf(developer.comments.create({ runbook_id: rb, task_id: '999999', body: 'x' }))).toBe('NOT_FOUND');
    expect(await codeOf(developer.comments.list({ runbook_id: '999999', page: {} }))).toBe('NOT_FOUND');
  });

  it('filters, searches and sorts tasks', async () => {
    const rb = await newRunbook('Filters');
    const a = await task(rb, 'Stop writes');
    await task(rb, 'Promote standby', [a]);
    await task(rb, 'Notify 100%_done');
    await manager.runbooks.start({ id: rb });
    await manager.tasks.start({ runbook_id: rb, id: a });
    await manager.tasks.finish({ runbook_id: rb, id: a });
    const list = (input: object) =>
      developer.tasks.list({ runbook_id: rb, page: {}, ...input }).then((p) => p.items.map((t) => t.name));
    expect(await list({ stage: 'startable' })).toEqual(['Promote standby', 'Notify 100%_done']);
    expect(await list({ completion_type: 'complete_normal' })).toEqual(['Stop writes']);
    expect(await list({ search_term: 'STANDBY' })).toEqual(['Promote standby']);
    expect(await list({ search_term: '%_' })).toEqual(['Notify 100%_done']);
    expect(await list({ sort: 'name' })).toEqual(['Notify 100%_done', 'Promote standby', 'Stop writes']);
    expect(await list({ sort: '-name', stage: 'startable' })).toEqual(['Promote standby', 'Notify 100%_done']);
  });

  it('keeps the successor release invariant under any order of actions (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }).chain((n) =>
          fc.record({
            preds: fc.tuple(
              ...Array.from({ length: n }, (_, i) =>
                fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, i - 1) }), { maxLength: i === 0 ? 0 : 3 }),
              ),
            ),
            auto: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
            choices: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
          }),
        ),
        async ({ preds, auto, choices }) => {
          const rb = await newRunbook('Property');
          const ids: string[] = [];
          for (let i = 0; i < preds.length; i++) {
            ids.push(
              await task(
                rb,
                `p${i}`,
                (preds[i] as number[]).map((p) => ids[p] as string),
                { auto_start: auto[i], auto_finish: auto[i] },
              ),
            );
          }
          await manager.runbooks.start({ id: rb });
          for (const choice of choices) {
            const tasks = (await developer.tasks.list({ runbook_id: rb, page: { size: 100 } })).items;
            const byId = new Map(tasks.map((t) => [t.id, t]));
            for (const t of tasks) {
              const predsComplete = t.predecessor_ids.every((p) => byId.get(p)?.stage === 'complete');
              if (t.stage === 'not_startable') expect(predsComplete).toBe(false);
              if (t.stage === 'startable' || (t.stage === 'in_progress' && t.completion_type === null))
                expect(predsComplete).toBe(true);
            }
            const open = tasks.filter((t) => t.stage !== 'complete');
            const runbook = await developer.runbooks.get({ id: rb });
            expect(runbook.stage).toBe(open.length === 0 ? 'complete' : 'active');
            if (open.length === 0) return;
            const t = open[choice % open.length] as (typeof open)[number];
            const ref = { runbook_id: rb, id: t.id };
            if (t.stage === 'startable') await manager.tasks.start(ref);
            else if (t.stage === 'in_progress') await manager.tasks.finish(ref);
            else await manager.tasks.skip({ ...ref, comment: 'property' });
          }
        },
      ),
      { numRuns: dialect === 'sqlite' ? 25 : 8 },
    );
  });
});
