#!/usr/bin/env node
/**
 * `pnpm bench:profile`: where the CPU of a request goes, per process. Starts the platform on the
 * embedded default with `--cpu-prof` on the gateway and catalog, seeds the benchmark data set, loads one
 * scenario with autocannon (3 s warm-up, then `--duration` s at `--connections`), stops, and prints
 * each process's busy time by package and its top functions by self time. The `.cpuprofile` files
 * stay in `--out` for Chrome DevTools (Performance → Load profile).
 *
 *   node bench/profile.mjs [--scenario list|task|direct] [--engine sqlite|mysql] [--duration 8] [--connections 10]
 *                          [--out bench/results/profiles] [--top 30]
 *
 * Self time is sampled wall time while the function was on top of the stack: native frames
 * (`writev`, `(garbage collector)`) include time the process was descheduled, so compare shares
 * within one profile, not absolute numbers across runs.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEmptyMysqlDatabase } from '@runbook/db/testing';
import autocannon from 'autocannon';
import { startBenchPlatform } from './lib/load.mjs';
import { seed } from './lib/seed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'list' },
    engine: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '10' },
    out: { type: 'string', default: join(here, 'results', 'profiles') },
    top: { type: 'string', default: '30' },
  },
});

/** Package (or workspace folder) a profiled script URL belongs to. */
function ownerOf(url) {
  if (!url) return '(native)';
  const dep = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return dep[1];
  if (url.startsWith('node:')) return 'node:internal';
  const own = /\/((?:apps|packages)\/[^/]+)\//.exec(url);
  return own ? own[1] : url;
}

/** Busy time by package and top functions by self time of one `.cpuprofile`. */
function summarize(profile, top) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const byPackage = new Map();
  const byFunction = new Map();
  let idle = 0;
  let total = 0;
  for (const [id, micros] of self) {
    const { callFrame } = nodes.get(id);
    total += micros;
    if (callFrame.functionName === '(idle)') {
      idle += micros;
      continue;
    }
    const owner = callFrame.functionName.startsWith('(') ? callFrame.functionName : ownerOf(callFrame.url);
    byPackage.set(owner, (byPackage.get(owner) ?? 0) + micros);
    const fn = `${callFrame.functionName || '(anonymous)'}  ${ownerOf(callFrame.url)}:${callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
  }
  const busy = total - idle;
  const rows = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, micros]) => ({
        name,
        ms: Math.round(micros / 1000),
        share: `${((100 * micros) / busy).toFixed(1)} %`,
      }));
  return { busyMs: Math.round(busy / 1000), packages: rows(byPackage, 15), functions: rows(byFunction, top) };
}

const dataDir = await mkdtemp(join(tmpdir(), 'runbook-profile-'));
await rm(args.out, { recursive: true, force: true });
await mkdir(args.out, { recursive: true });
const profiled = (name) => ['--cpu-prof', `--cpu-prof-dir=${join(args.out, name)}`];
if (!['sqlite', 'mysql'].includes(args.engine)) throw new Error('--engine must be sqlite or mysql');
const serviceEnv = {};
const drops = [];
if (args.engine === 'mysql') {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  // A unique prefix keeps another run's ciphertext and counters out of this one (shared Redis).
  const prefix = `rbprofile:${Date.now().toString(36)}:`;
  for (const service of ['identity', 'secrets', 'catalog']) {
    const db = await createEmptyMysqlDatabase();
    drops.push(db.drop);
    serviceEnv[service] = { MYSQL_URL: db.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix };
  }
  serviceEnv.gateway = { REDIS_URL: redisUrl, REDIS_PREFIX: prefix };
}
const platform = await startBenchPlatform({
  dataDir,
  serviceEnv,
  nodeArgs: { gateway: profiled('gateway'), catalog: profiled('catalog') },
});
let requests = 0;
try {
  const headers = { authorization: `Bearer ${platform.adminToken}` };
  const data = await seed(platform.gatewayUrl, platform.adminToken);
  const input = encodeURIComponent(JSON.stringify({ workspace_id: data.workspaceId, page: { size: 25 } }));
  const urls = {
    list: `${platform.gatewayUrl}/core/runbooks?workspace_id=${data.workspaceId}&page[size]=25`,
    task: `${platform.gatewayUrl}/core/runbooks/${data.runbookId}/tasks/${data.taskId}`,
    direct: `${platform.urls.catalog}/trpc/runbooks.list?input=${input}`,
  };
  const url = urls[args.scenario];
  if (!url) throw new Error(`--scenario must be one of ${Object.keys(urls).join(', ')}`);
  const connections = Number(args.connections);
  await autocannon({ url, headers, connections, duration: 3 });
  const result = await autocannon({ url, headers, connections, duration: Number(args.duration) });
  requests = result.requests.total;
  console.log(
    `${args.scenario}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms (under the profiler), non-2xx ${result.non2xx}`,
  );
} finally {
  await platform.stop();
  await rm(dataDir, { recursive: true, force: true });
  for (const drop of drops) await drop();
}

for (const name of ['gateway', 'catalog']) {
  const dir = join(args.out, name);
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'))) {
    const summary = summarize(JSON.parse(await readFile(join(dir, file), 'utf8')), Number(args.top));
    console.log(`\n## ${name}: ${summary.busyMs} ms busy (warm-up and seeding included), ${join(dir, file)}`);
    console.table(summary.packages);
    console.table(summary.functions);
  }
}
if (requests === 0) process.exitCode = 1;
