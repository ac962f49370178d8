/**
 * Load generation (autocannon) with CPU accounting of the server processes (pidusage) and of the
 * whole machine (Linux `/proc/stat`).
 */
import { fork } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import autocannon from 'autocannon';
import pidusage from 'pidusage';

/** A free loopback port. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Forks `script` with `env`; resolves once it sends 'ready'. */
export function startChild(script, env) {
  return new Promise((resolve, reject) => {
    const child = fork(script, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (m) => (m === 'ready' ? resolve(child) : undefined));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Runs autocannon against `request` for `duration` seconds after a short warm-up.
 * @param {object} o
 * @param {string} o.url
 * @param {number} o.connections
 * @param {number} o.duration seconds
 * @param {Record<string, number>} o.pids process name → pid, for CPU per request
 * @returns {Promise<{rps:number,p50:number,p99:number,requests:number,errors:number,non2xx:number,cpuMsPerRequest:Record<string,number>,machineBusy:number|null}>}
 *   `machineBusy`: share (0–1) of all cores' time not idle while the load ran (every process on the
 *   machine, the load generator included); null where `/proc/stat` is not readable.
 */
export async function measure({
  url,
  connections,
  duration,
  method = 'GET',
  headers = {},
  body,
  pids = {},
  warmup = 3,
}) {
  const options = { url, connections, method, headers, ...(body ? { body } : {}) };
  await autocannon({ ...options, duration: warmup });
  const before = await cpuTimes(pids);
  const machineBefore = await machineTimes();
  const result = await autocannon({ ...options, duration });
  const machineAfter = await machineTimes();
  const after = await cpuTimes(pids);
  const requests = result.requests.total;
  const cpuMsPerRequest = Object.fromEntries(
    Object.keys(pids).map((name) => [name, requests ? round((after[name] - before[name]) / requests, 4) : null]),
  );
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuMsPerRequest,
    machineBusy:
      machineBefore && machineAfter
        ? round(1 - (machineAfter.idle - machineBefore.idle) / (machineAfter.total - machineBefore.total), 3)
        : null,
  };
}

/** Idle and total jiffies of all cores (first line of `/proc/stat`), or null off Linux. */
async function machineTimes() {
  try {
    const fields = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
    return { idle: fields[3] + fields[4], total: fields.slice(0, 8).reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/**
 * Pids of the local MariaDB/MySQL and Redis servers the MySQL + Redis engine talks to, so their CPU
 * per request is reported beside the Node processes' (the database does the same query for the
 * platform and the baseline; what it costs per request under each is part of the comparison).
 * Only for servers on this machine: MariaDB's `@@pid_file` and Redis's `INFO server` `process_id`
 * name them. A server that cannot be asked is left out (logged by the caller, not fatal).
 * @param {{mysqlUrl: string, redisUrl: string}} o
 * @returns {Promise<Record<string, number>>} `{ mysqld?: pid, redis?: pid }`
 */
export async function databaseServerPids({ mysqlUrl, redisUrl }) {
  const { createDb, sql } = await import('@runbook/db');
  const { createRedisClient } = await import('@runbook/cache');
  const pids = {};
  const db = createDb({ dialect: 'mysql', url: mysqlUrl });
  try {
    const { rows } = await sql`select @@pid_file as pid_file`.execute(db);
    const pid = Number((await readFile(rows[0].pid_file, 'utf8')).trim());
    if (Number.isSafeInteger(pid) && pid > 0) pids.mysqld = pid;
  } catch {
    /* not local, or the pid file is not readable */
  } finally {
    await db.destroy();
  }
  const redis = createRedisClient(redisUrl);
  try {
    // The platform's client has no offline queue: wait until it is connected.
    await new Promise((resolve, reject) => {
      redis.once('ready', resolve);
      setTimeout(() => reject(new Error('Redis not ready')), 2000).unref();
    });
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    if (Number.isSafeInteger(pid) && pid > 0) pids.redis = pid;
  } catch {
    /* not reachable */
  } finally {
    redis.disconnect();
  }
  return pids;
}

async function cpuTimes(pids) {
  const entries = Object.entries(pids);
  if (entries.length === 0) return {};
  const stats = await pidusage(entries.map(([, pid]) => pid));
  return Object.fromEntries(entries.map(([name, pid]) => [name, stats[pid]?.ctime ?? 0]));
}

/** Resident set size in MiB of each pid. */
export async function rss(pids) {
  const entries = Object.entries(pids);
  const stats = await pidusage(entries.map(([, pid]) => pid));
  return Object.fromEntries(entries.map(([name, pid]) => [name, round(stats[pid].memory / 1048576, 1)]));
}

export const round = (n, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Median and p99 latency (ms, sub-millisecond resolution — autocannon's histogram has whole
 * milliseconds) of closed-loop requests: `connections` keep-alive connections, each sending `n`
 * requests one after another after `warmup` unmeasured ones. One connection is an unloaded
 * machine's view of a path; ten is the "p50 at 10 connections" with sub-ms resolution.
 */
export async function sequentialLatency({ url, headers = {}, n = 500, warmup = 100, connections = 1 }) {
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ connections });
  const times = [];
  // Throughput over the measured requests: from the first measured start to the last answer.
  let firstMeasured = Number.POSITIVE_INFINITY;
  let lastDone = 0;
  const loop = async () => {
    for (let i = 0; i < n + warmup; i++) {
      const started = performance.now();
      const res = await request(url, { headers, dispatcher });
      await res.body.arrayBuffer();
      if (res.statusCode >= 400) throw new Error(`${url} answered ${res.statusCode}`);
      if (i >= warmup) {
        const done = performance.now();
        times.push(done - started);
        firstMeasured = Math.min(firstMeasured, started);
        lastDone = Math.max(lastDone, done);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, loop));
  } finally {
    await dispatcher.destroy();
  }
  times.sort((a, b) => a - b);
  return {
    p50: round(times[Math.floor(times.length / 2)], 3),
    p99: round(times[Math.floor(times.length * 0.99)], 3),
    rps: Math.round((times.length * 1000) / (lastDone - firstMeasured)),
  };
}

/**
 * Median and p99 latency (ms, sub-millisecond) of an open-loop load: `connections` keep-alive
 * connections together sending `rate` requests per second on a fixed schedule (each connection
 * one every `connections / rate` s, staggered) for `seconds` after `warmupSeconds`. A request whose
 * connection was still busy at its scheduled time is timed from that time, so a late answer also
 * charges the requests queued behind it (no coordinated omission); one sent on an idle connection
 * is timed from when it was really sent, so the generator's own timer error (Node timers fire up
 * to a millisecond early or late) is not counted as the server's. Below the server's capacity this
 * is the latency a request sees on a machine that is busy but not saturated; `sequentialLatency`
 * at the same connection count measures the saturated case.
 * @returns {Promise<{p50:number,p99:number,measured:number,achievedRps:number,sendLagP50:number,sendLagP99:number}>}
 *   `achievedRps`: answers in the measured window ÷ its real length (below `rate` when the server
 *   falls behind); `sendLag*`: ms between schedule and send on an idle connection (the generator's
 *   accuracy).
 */
export async function pacedLatency({ url, headers = {}, rate, connections = 10, seconds = 4, warmupSeconds = 1 }) {
  const { Agent, request } = await import('undici');
  const { setTimeout: sleep } = await import('node:timers/promises');
  const dispatcher = new Agent({ connections });
  const interval = (connections / rate) * 1000;
  const start = performance.now() + 50;
  const measureFrom = start + warmupSeconds * 1000;
  const end = measureFrom + seconds * 1000;
  const times = [];
  const lags = [];
  let lastDone = measureFrom;
  let failed = false;
  const loop = async (i) => {
    let previousDone = 0;
    for (let k = 0; !failed; k++) {
      const scheduled = start + (i * interval) / connections + k * interval;
      if (scheduled >= end) return;
      const wait = scheduled - performance.now();
      if (wait > 0) await sleep(wait);
      const sent = performance.now();
      const busy = previousDone > scheduled;
      const res = await request(url, { headers, dispatcher });
      await res.body.arrayBuffer();
      if (res.statusCode >= 400) throw new Error(`${url} answered ${res.statusCode}`);
      previousDone = performance.now();
      if (scheduled < measureFrom) continue;
      times.push(previousDone - (busy ? scheduled : sent));
      if (!busy) lags.push(sent - scheduled);
      lastDone = Math.max(lastDone, previousDone);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: connections }, (_, i) =>
        loop(i).catch((error) => {
          failed = true;
          throw error;
        }),
      ),
    );
  } finally {
    await dispatcher.destroy();
  }
  times.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  return {
    p50: round(times[Math.floor(times.length / 2)], 3),
    p99: round(times[Math.floor(times.length * 0.99)], 3),
    measured: times.length,
    achievedRps: Math.round((times.length * 1000) / (lastDone - measureFrom)),
    sendLagP50: lags.length ? round(lags[Math.floor(lags.length / 2)], 3) : null,
    sendLagP99: lags.length ? round(lags[Math.floor(lags.length * 0.99)], 3) : null,
  };
}

/**
 * Starts the platform (scripts/start-local.mjs) on free loopback ports with benchmark settings:
 * logs at `warn` to nowhere, rate limits out of the way.
 * @param {{dataDir: string, serviceEnv?: object, nodeArgs?: object}} options passed to `startPlatform`.
 */
export async function startBenchPlatform({ dataDir, serviceEnv = {}, nodeArgs = {} }) {
  const { startPlatform } = await import('../../scripts/start-local.mjs');
  const ports = {
    gateway: await freePort(),
    identity: await freePort(),
    secrets: await freePort(),
    catalog: await freePort(),
  };
  return startPlatform({
    dataDir,
    ports,
    serviceEnv,
    nodeArgs,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000000000', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000000' },
    output: 'ignore',
  });
}
