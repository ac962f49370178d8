import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobState } from '../db/database.js';
import { type CatalogTestKit, createCatalogTestKit } from '../test-support.js';
import { createJobWorker, PURGE_BATCH, PURGE_MAX_BATCHES } from './job-worker.js';
import { enqueueJobs } from './jobs.repository.js';

const DAY = 86_400_000;

describe.each(await testDialects())('retention of finished jobs on %s', (dialect) => {
  let kit: CatalogTestKit;
  let runbookId: number;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
    const manager = kit.as(['developer', 'workspace_manager']);
    const ws = await manager.workspaces.create({ name: 'Retention' });
    runbookId = Number((await manager.runbooks.create({ workspace_id: ws.id, name: 'Jobs' })).id);
  });
  afterAll(() => kit.destroy());
  beforeEach(() => kit.deps.db.deleteFrom('jobs').execute());

  /** Adds `count` jobs in `state`, last changed `ageDays` ago. */
  async function jobs(state: JobState, ageDays: number, count = 1): Promise<void> {
    const at = kit.clock.now - ageDays * DAY;
    const before = await kit.deps.db.selectFrom('jobs').select('id').execute();
    await enqueueJobs(
      kit.deps.db,
      Array.from({ length: count }, () => ({
        kind: 'advance' as const,
        runbook_id: runbookId,
        task_id: null,
        payload: {},
      })),
      at,
    );
    const known = new Set(before.map((r) => r.id));
    const added = (await kit.deps.db.selectFrom('jobs').select('id').execute())
      .map((r) => r.id)
      .filter((id) => !known.has(id));
    await kit.deps.db.updateTable('jobs').set({ state, updated_at: at }).where('id', 'in', added).execute();
  }
  const remaining = async () =>
    (await kit.deps.db.selectFrom('jobs').select(['state', 'updated_at']).orderBy('id').execute()).map(
      (r) => `${r.state}@${Math.round((kit.clock.now - Number(r.updated_at)) / DAY)}d`,
    );

  it('deletes finished jobs past the retention, keeps recent ones and every waiting job', async () => {
    for (const state of ['done', 'failed', 'canceled', 'queued', 'parked'] as const) {
      await jobs(state, 8);
      await jobs(state, 6);
    }
    expect(await createJobWorker(kit.deps).purgeFinished()).toBe(3);
    expect(await remaining()).toEqual([
      'done@6d',
      'failed@6d',
      'canceled@6d',
      'queued@8d',
      'queued@6d',
      'parked@8d',
      'parked@6d',
    ]);
  });

  it('works through a backlog in batches, and keeps everything when the retention is 0', async () => {
    await jobs('done', 30, PURGE_BATCH * 2 + 5);
    await jobs('done', 1);
    const keepAll = createJobWorker({ ...kit.deps, orchestration: { ...kit.deps.orchestration, jobRetentionMs: 0 } });
    expect(await keepAll.purgeFinished()).toBe(0);
    expect(await createJobWorker(kit.deps).purgeFinished()).toBe(PURGE_BATCH * 2 + 5);
    expect(await remaining()).toEqual(['done@1d']);
  });

  it('stops a sweep after PURGE_MAX_BATCHES batches; the next one goes on', async () => {
    const cap = PURGE_BATCH * PURGE_MAX_BATCHES;
    await jobs('canceled', 9, cap + 5);
    const worker = createJobWorker(kit.deps);
    expect(await worker.purgeFinished()).toBe(cap);
    expect(await worker.purgeFinished()).toBe(5);
    expect(await remaining()).toEqual([]);
  }, 60_000);

  it('sweeps from the running worker loop', async () => {
    await jobs('failed', 10);
    await jobs('queued', 10);
    const worker = createJobWorker({
      ...kit.deps,
      // Not due: the queued job stays put while the loop runs; the sweep is due at once.
      now: () => kit.clock.now,
      orchestration: { ...kit.deps.orchestration, jobPurgeEveryMs: 0, pollMs: 10 },
    });
    await kit.deps.db
      .updateTable('jobs')
      .set({ available_at: kit.clock.now + DAY })
      .where('state', '=', 'queued')
      .execute();
    worker.start();
    try {
      for (let i = 0; i < 100 && (await remaining()).length > 1; i++) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.stop();
    }
    expect(await remaining()).toEqual(['queued@10d']);
  });
});
