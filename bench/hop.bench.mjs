#!/usr/bin/env node
/**
 * Where a gateway request's CPU goes, in layers: the real gateway (`createServer` from
 * apps/gateway/dist) serves `GET /core/runbooks` while its catalog dependency is, in turn,
 *   - `in-process`: a function returning a canned page (the REST layer alone: Fastify,
 *     trpc-to-openapi, the procedure, zod, JSON:API mapping, serialisation);
 *   - `undici`: one bare undici `request()` to a canned upstream + `res.body.json()` (a hop as
 *     undici's stream API makes it);
 *   - `trpc client`: the platform's service client (`createServiceClient`: @trpc/client with the
 *     service link on undici's dispatcher interface) to the same upstream.
 * The upstream is a bare node:http server answering the same tRPC response bytes, so the
 * differences are the gateway's own CPU per request. Modes are alternated over rounds (median
 * reported) because the machine is noisy. Results: bench/results/hop.json.
 *
 *   node bench/hop.bench.mjs [--quick]
 */
import { fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pidusage from 'pidusage';

const here = dirname(fileURLToPath(import.meta.url));
const MODES = ['in-process', 'undici', 'trpc client'];

/** Child process: the real gateway with the catalog client chosen by MODE. */
async function serveGateway() {
  const { createServer: createGateway } = await import('../apps/gateway/dist/server.js');
  const { createLogger, createServiceClient } = await import('../packages/rpc/dist/index.js');
  const page = JSON.parse(process.env.PAGE);
  const upstream = process.env.UPSTREAM;
  let catalog;
  if (process.env.MODE === 'in-process') {
    catalog = { runbooks: { list: { query: async () => structuredClone(page) } } };
  } else if (process.env.MODE === 'undici') {
    const { Agent, request } = await import('undici');
    const dispatcher = new Agent({ connections: 64 });
    const query = async (input, opts) => {
      const res = await request(`${upstream}/trpc/runbooks.list?input=${encodeURIComponent(JSON.stringify(input))}`, {
        dispatcher,
        headers: { authorization: `Bearer ${opts.context.credential}` },
      });
      return (await res.body.json()).result.data;
    };
    catalog = { runbooks: { list: { query } } };
  } else {
    catalog = createServiceClient(upstream, 'unused');
  }
  const server = await createGateway({
    identity: {},
    secrets: {},
    catalog,
    publicUrl: 'http://127.0.0.1:3000',
    logger: createLogger('gateway', 'warn'),
  });
  process.send(await server.start({ port: 0, host: '127.0.0.1' }));
  process.on('SIGTERM', () => server.stop().then(() => process.exit(0)));
}

async function measureMode(mode, page, upstream, duration) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    env: { ...process.env, MODE: mode, PAGE: JSON.stringify(page), UPSTREAM: upstream },
  });
  try {
    const base = await new Promise((ok, fail) => {
      child.once('message', ok);
      child.once('exit', (code) => fail(new Error(`gateway (${mode}) exited with ${code}`)));
    });
    const options = {
      url: `${base}/core/runbooks?workspace_id=1&page[size]=25`,
      headers: { authorization: 'Bearer rbt_bench' },
      connections: 10,
    };
    await autocannon({ ...options, duration: 2 });
    const before = await pidusage(child.pid);
    const result = await autocannon({ ...options, duration });
    const after = await pidusage(child.pid);
    if (result.non2xx || result.errors) throw new Error(`${mode}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: Math.round(result.requests.average), cpu_ms: (after.ctime - before.ctime) / result.requests.total };
  } finally {
    child.kill('SIGTERM');
    await new Promise((ok) => (child.exitCode === null ? child.once('exit', ok) : ok()));
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (n, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

/** Runs every mode `rounds` times, alternating, and reports medians and the layer differences. */
export async function runHopBench({ quick = false } = {}) {
  const now = new Date().toISOString();
  const items = Array.from({ length: 25 }, (_, i) => ({
    id: String(i + 1),
    workspace_id: '1',
    name: `Runbook ${i}`,
    description: 'A runbook of the benchmark data set.',
    is_template: false,
    stage: 'planning',
    run_type: null,
    created_at: now,
    updated_at: now,
    start_actual: null,
    end_actual: null,
    custom_field_values: [],
  }));
  const page = { items, number: 1, size: 25, total: 30, next_cursor: 'bench' };
  const body = JSON.stringify({ result: { data: page } });
  const upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise((ok) => upstream.listen(0, '127.0.0.1', ok));
  const upstreamUrl = `http://127.0.0.1:${upstream.address().port}`;
  const rounds = quick ? 1 : 5;
  const samples = Object.fromEntries(MODES.map((m) => [m, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (const mode of MODES) samples[mode].push(await measureMode(mode, page, upstreamUrl, quick ? 3 : 5));
    }
  } finally {
    upstream.close();
  }
  const cpu = Object.fromEntries(MODES.map((m) => [m, round(median(samples[m].map((s) => s.cpu_ms)), 4)]));
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    rounds,
    gateway_cpu_ms_per_request: cpu,
    requests_per_s: Object.fromEntries(MODES.map((m) => [m, median(samples[m].map((s) => s.rps))])),
    layers_ms: {
      rest_layer: cpu['in-process'],
      hop_with_undici: round(cpu.undici - cpu['in-process'], 4),
      hop_with_trpc_client: round(cpu['trpc client'] - cpu['in-process'], 4),
      trpc_client_over_undici: round(cpu['trpc client'] - cpu.undici, 4),
    },
  };
  console.log('\n## Gateway CPU per GET /core/runbooks by catalog dependency (median of rounds, 10 connections)');
  console.table(MODES.map((m) => ({ catalog: m, 'gateway CPU ms/req': cpu[m], 'req/s': results.requests_per_s[m] })));
  console.log(`layers (ms CPU per request): ${JSON.stringify(results.layers_ms)}`);
  await mkdir(join(here, 'results'), { recursive: true });
  await writeFile(join(here, 'results', 'hop.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.error('[bench] wrote bench/results/hop.json');
  return results;
}

if (process.argv.includes('--serve')) {
  await serveGateway();
} else if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  await runHopBench({ quick: values.quick });
}
