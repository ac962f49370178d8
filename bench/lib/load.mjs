/**
 * Load generation (autocannon) with CPU accounting of the server processes (pidusage).
 */
import { fork } from 'node:child_process';
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
 * @returns {Promise<{rps:number,p50:number,p99:number,requests:number,errors:number,non2xx:number,cpuMsPerRequest:Record<string,number>}>}
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
  const result = await autocannon({ ...options, duration });
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
  };
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
  const loop = async () => {
    for (let i = 0; i < n + warmup; i++) {
      const started = performance.now();
      const res = await request(url, { headers, dispatcher });
      await res.body.arrayBuffer();
      if (res.statusCode >= 400) throw new Error(`${url} answered ${res.statusCode}`);
      if (i >= warmup) times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  await dispatcher.close();
  times.sort((a, b) => a - b);
  return {
    p50: round(times[Math.floor(times.length / 2)], 3),
    p99: round(times[Math.floor(times.length * 0.99)], 3),
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
