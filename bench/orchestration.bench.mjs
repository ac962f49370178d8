#!/usr/bin/env node
/**
 * Runbook orchestration at scale, in process on the embedded default (SQLite file, WAL): a generated
 * runbook of N tasks with random predecessors (a DAG: each task waits for 0–3 tasks chosen uniformly
 * among the earlier ones, seeded) is started and run to completion through catalog's own procedures
 * (`createCaller`) and job worker, for N = 1,000 and N = 10,000. Time per task must not grow with N:
 * the engine advances by counters (`pending_predecessors`, `tasks_remaining`), so each completion
 * costs O(its outgoing edges). Two ways to run a runbook:
 *
 * - `auto`: every task `auto_start` + `auto_finish`; one `runbooks.start` call, then the worker runs
 *   the `advance` jobs the engine writes when a transaction's cascade budget is spent, until the
 *   runbook is complete.
 * - `manual`: a person's calls — `tasks.start` then `tasks.finish` for every task, in id order
 *   (a topological order), each call a transaction with the run lock, like the REST actions.
 *
 * The graph is inserted directly (creating tasks is not what is measured); a 500-task warm-up run
 * comes first so both sizes run on warmed-up code. Each size runs several times (auto 5 and 5,
 * manual 3 and 1), the sizes alternating; reports the median run's ms per task and queries per task
 * and the 10,000 / 1,000 ratio of those medians (must be ≤ 1.5), and writes bench/results/orchestration.json.
 * Bounded: about a minute for the full run, a few seconds with `--quick` (N = 300 and 3,000).
 *
 *   node bench/orchestration.bench.mjs [--quick]
 *
 * Needs `pnpm build` (it imports catalog's compiled modules from apps/catalog/dist).
 * `runOrchestrationBench({quick})` is exported for `bench/run.mjs`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDb, migrateToLatest } from '@runbook/db';

const here = dirname(fileURLToPath(import.meta.url));
// Catalog is an app, not a dependency of this package: its compiled modules are imported by path.
const catalogDist = resolve(here, '../apps/catalog/dist');
const RATIO_LIMIT = 1.5;

/** Deterministic PRNG (mulberry32). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const silentLogger = {
  level: 'silent',
  fatal() {},
  error() {},
  warn() {},
  info() {},
  debug() {},
  trace() {},
  child() {
    return silentLogger;
  },
};

async function loadCatalog() {
  const load = (path) => import(join(catalogDist, path));
  const [{ catalogRouter }, trpc, { migrations }, { createJobWorker }, { defaultOrchestrationConfig }, ports] =
    await Promise.all([
      load('router.js'),
      load('trpc.js'),
      load('db/migrations/index.js'),
      load('orchestration/job-worker.js'),
      load('deps.js'),
      load('secrets-port.js'),
    ]);
  return { catalogRouter, trpc, migrations, createJobWorker, defaultOrchestrationConfig, ports };
}

/** Inserts a runbook of `n` tasks with random predecessors; returns its id, task ids (topological) and edge count. */
async function generateRunbook(db, workspaceId, n, auto, seed) {
  const now = Date.now();
  const runbook = await db
    .insertInto('runbooks')
    .values({
      workspace_id: workspaceId,
      name: `bench ${n} ${auto ? 'auto' : 'manual'}`,
      description: '',
      run_type: null,
      is_template: 0,
      created_at: now,
      updated_at: now,
    })
    .executeTakeFirstOrThrow();
  const runbookId = Number(runbook.insertId);
  const rows = Array.from({ length: n }, (_, i) => ({
    runbook_id: runbookId,
    name: `task ${i}`,
    description: '',
    completion_type: null,
    duration: 60,
    auto_start: auto ? 1 : 0,
    auto_finish: auto ? 1 : 0,
    start_actual: null,
    end_actual: null,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('tasks')
      .values(rows.slice(i, i + 500))
      .execute();
  const ids = (
    await db.selectFrom('tasks').select('id').where('runbook_id', '=', runbookId).orderBy('id').execute()
  ).map((r) => r.id);
  const random = prng(seed);
  const links = [];
  for (let i = 1; i < n; i++) {
    const k = Math.floor(random() * 4);
    const chosen = new Set();
    for (let j = 0; j < k; j++) chosen.add(Math.floor(random() * i));
    for (const p of chosen) links.push({ task_id: ids[i], predecessor_id: ids[p] });
  }
  for (let i = 0; i < links.length; i += 500)
    await db
      .insertInto('task_predecessors')
      .values(links.slice(i, i + 500))
      .execute();
  return { runbookId, ids, edges: links.length };
}

/** Runs one generated runbook to completion; returns timings and query counts. */
async function runOnce(kit, n, mode, seed) {
  const { db, caller, worker, queries, workspaceId } = kit;
  const { runbookId, ids, edges } = await generateRunbook(db, workspaceId, n, mode === 'auto', seed);
  queries.count = 0;
  const started = performance.now();
  await caller.runbooks.start({ id: String(runbookId), run_type: 'rehearsal' });
  if (mode === 'auto') {
    for (;;) {
      const ran = await worker.runDue();
      if (ran === 0) break;
    }
  } else {
    for (const id of ids) {
      await caller.tasks.start({ runbook_id: String(runbookId), id: String(id) });
      await caller.tasks.finish({ runbook_id: String(runbookId), id: String(id) });
    }
  }
  const ms = performance.now() - started;
  const runbook = await db.selectFrom('runbooks').select(['stage']).where('id', '=', runbookId).executeTakeFirst();
  const incomplete = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('runbook_id', '=', runbookId)
    .where('stage', '!=', 'complete')
    .executeTakeFirst();
  if (runbook?.stage !== 'complete' || Number(incomplete?.n) !== 0) {
    throw new Error(`runbook of ${n} tasks (${mode}) ended ${runbook?.stage} with ${incomplete?.n} tasks incomplete`);
  }
  return {
    mode,
    tasks: n,
    edges,
    ms: Math.round(ms),
    ms_per_task: Number((ms / n).toFixed(4)),
    queries_per_task: Number((queries.count / n).toFixed(2)),
  };
}

/**
 * Runs the benchmark; prints a table and writes bench/results/orchestration.json.
 * @param {{quick?: boolean}} [options] quick: N = 300 and 3,000 instead of 1,000 and 10,000.
 * @returns {Promise<object>} the report written.
 */
export async function runOrchestrationBench({ quick = false } = {}) {
  const sizes = quick ? [300, 3_000] : [1_000, 10_000];
  const { catalogRouter, trpc, migrations, createJobWorker, defaultOrchestrationConfig, ports } = await loadCatalog();
  const dir = await mkdtemp(join(tmpdir(), 'runbook-orchestration-bench-'));
  const queries = { count: 0 };
  const db = createDb({ dialect: 'sqlite', file: join(dir, 'catalog.sqlite') }, { onQuery: () => queries.count++ });
  try {
    await migrateToLatest(db, migrations);
    const deps = {
      db,
      authenticate: async () => ({ kind: 'service', service: 'bench' }),
      logger: silentLogger,
      now: Date.now,
      secrets: ports.unavailableTemplateService,
      directory: { findMissing: async () => [], teamsOfUser: async () => [] },
      fetch: globalThis.fetch,
      orchestration: { ...defaultOrchestrationConfig, workerId: 'bench' },
      jobsQueued: () => {},
    };
    const caller = trpc.createCallerFactory(catalogRouter)(trpc.createContextInner(deps, 'bench-service'));
    const workspaceId = Number((await caller.workspaces.create({ name: 'Bench' })).id);
    const kit = { db, caller, worker: createJobWorker(deps), queries, workspaceId };

    const warmup = [await runOnce(kit, 500, 'auto', 1), await runOnce(kit, 500, 'manual', 2)];
    // Repetitions per size, alternating which size goes first: an auto run of 1,000 tasks lasts
    // ~40 ms, so one run of each size let a single GC pause or machine hiccup move the ratio by
    // ±0.4 (1.17–1.85 in three runs of the same build); the median of several does not.
    const repetitions = { auto: [5, 5], manual: [3, 1] };
    const runs = [];
    for (const mode of ['auto', 'manual']) {
      const [small, large] = repetitions[mode];
      for (let i = 0; i < Math.max(small, large); i++) {
        const order = i % 2 === 0 ? [0, 1] : [1, 0];
        for (const k of order) {
          if (i >= repetitions[mode][k]) continue;
          runs.push(await runOnce(kit, sizes[k], mode, sizes[k] + i * 101 + (mode === 'auto' ? 11 : 13)));
        }
      }
    }
    /** The median run of `mode` at `n` tasks (by ms per task), with how many runs it is the median of. */
    const medianRun = (mode, n) => {
      const of = runs.filter((r) => r.mode === mode && r.tasks === n).sort((a, b) => a.ms_per_task - b.ms_per_task);
      return { ...of[Math.floor(of.length / 2)], runs: of.length };
    };
    const medians = ['auto', 'manual'].flatMap((mode) => sizes.map((n) => medianRun(mode, n)));
    const ratio = (mode) => {
      const [small, large] = sizes.map((n) => medianRun(mode, n));
      return Number((large.ms_per_task / small.ms_per_task).toFixed(3));
    };
    const ratios = { auto: ratio('auto'), manual: ratio('manual') };
    const report = {
      benchmark: 'orchestration',
      date: new Date().toISOString(),
      node: process.version,
      engine: 'sqlite (file, WAL), in process via createCaller',
      quick,
      cascade_budget: defaultOrchestrationConfig.cascadeBudget,
      sizes,
      warmup,
      repetitions,
      medians,
      runs,
      ratio_ms_per_task: ratios,
      ratio_limit: RATIO_LIMIT,
      pass: Object.values(ratios).every((r) => r <= RATIO_LIMIT),
    };
    console.log('\nRunbook orchestration (SQLite, in process)');
    console.log('mode    tasks   edges    total ms   ms/task   queries/task   (median of runs)');
    for (const r of medians) {
      console.log(
        `${r.mode.padEnd(7)} ${String(r.tasks).padStart(6)} ${String(r.edges).padStart(7)} ${String(r.ms).padStart(10)} ${r.ms_per_task.toFixed(4).padStart(9)} ${r.queries_per_task.toFixed(2).padStart(14)}   ${r.runs}`,
      );
    }
    console.log(
      `ratio ms/task ${sizes[1]}/${sizes[0]}: auto ${ratios.auto}, manual ${ratios.manual} (limit ${RATIO_LIMIT}) → ${report.pass ? 'PASS' : 'FAIL'}\n`,
    );
    await mkdir(join(here, 'results'), { recursive: true });
    await writeFile(join(here, 'results', 'orchestration.json'), `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  const report = await runOrchestrationBench({ quick: values.quick });
  process.exitCode = report.pass ? 0 : 1;
}
