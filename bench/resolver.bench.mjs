#!/usr/bin/env node
/**
 * The `{{system.*}}` resolver, measured two ways in one bounded run (loopback only, < 60 s):
 *
 * 1. In process: our resolver (`@runbook/secrets/template`, `json` context: values injected as
 *    escaped JSON string content) against Mustache rendering the very same template with the same
 *    values — once with a JSON-string escape (the same output as ours, checked) and once with its
 *    default HTML escape. The payload is a 4 KiB JSON document with 20 references; each contender
 *    runs in alternating rounds and the best round counts, so background noise hits both alike.
 * 2. End to end: `resolution.resolve` over tRPC on the secrets service (started with the platform,
 *    `scripts/start-local.mjs`), with the cache warm — Redis when it answers at REDIS_URL (default
 *    redis://127.0.0.1:6379), else the in-process cache — driven by autocannon with a service
 *    credential. Each request: authentication (cached), one MGET, 20 AES-256-GCM decryptions and the
 *    render.
 *
 *   node bench/resolver.bench.mjs [--quick]
 *
 * Prints a table and the ratio, writes bench/results/resolver.json. `runResolverBench({quick})` is
 * exported for `bench/run.mjs`.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createRedisCache } from '@runbook/cache';
import { compileTemplate } from '@runbook/secrets/template';
import autocannon from 'autocannon';
import Mustache from 'mustache';
import { startPlatform } from '../scripts/start-local.mjs';
import { freePort } from './lib/load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const REFERENCES = 20;
const PAYLOAD_BYTES = 4096;

/** 20 parameter values: API keys, URLs, and a few needing JSON escaping (quotes, backslashes, newlines). */
function makeValues() {
  const values = {};
  for (let i = 0; i < REFERENCES; i++) {
    values[`param_${String(i).padStart(2, '0')}`] =
      i % 5 === 0
        ? `pa"ss\\word-${i}\n${randomBytes(8).toString('hex')}`
        : i % 5 === 1
          ? `https://api-${i}.example.com/v1/resources?tenant=${i}`
          : `sk_live_${randomBytes(16).toString('hex')}`;
  }
  return values;
}

/** A JSON payload of ~4 KiB whose string values hold the 20 references among ordinary fields. */
function makeTemplate(names) {
  const doc = { metadata: {}, credentials: {}, items: [] };
  const refs = names.map((n) => `{{system.${n}}}`);
  refs.forEach((ref, i) => {
    if (i % 4 === 0) doc.credentials[`key_${i}`] = ref;
    else if (i % 4 === 1) doc.metadata[`endpoint_${i}`] = `${ref}/path`;
    else doc.items.push({ id: i, label: `Item ${i}`, auth: `Bearer ${ref}`, enabled: true, weight: i * 1.5 });
  });
  let filler = 0;
  let text = JSON.stringify(doc, null, 2);
  while (Buffer.byteLength(text) < PAYLOAD_BYTES - 64) {
    doc.metadata[`note_${filler}`] = `Ordinary text field number ${filler} without any reference in it.`;
    filler++;
    text = JSON.stringify(doc, null, 2);
  }
  return text;
}

const jsonEscape = (value) => JSON.stringify(String(value)).slice(1, -1);

/** Runs `fn` for `ms`, in batches; returns ops/s. */
function timeFor(fn, ms) {
  const batch = 200;
  const deadline = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  const started = process.hrtime.bigint();
  let ops = 0;
  let sink = 0;
  while (process.hrtime.bigint() < deadline) {
    for (let i = 0; i < batch; i++) sink += fn().length;
    ops += batch;
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  if (sink === 0) throw new Error('nothing rendered');
  return ops / elapsed;
}

/** Our resolver vs Mustache on the same template and values, same run, alternating rounds. */
async function resolverVsMustache({ quick }) {
  const values = makeValues();
  const names = Object.keys(values);
  const template = makeTemplate(names);
  const map = new Map(Object.entries(values));
  const view = { system: values };

  const contenders = {
    'ours (json context)': () => compileTemplate(template, 'json').render(map),
    'mustache (JSON escape)': () => Mustache.render(template, view, undefined, { escape: jsonEscape }),
    'mustache (default HTML escape)': () => Mustache.render(template, view),
  };
  // Same output, or the comparison is meaningless.
  const ours = contenders['ours (json context)']();
  const theirs = contenders['mustache (JSON escape)']();
  if (ours !== theirs) throw new Error('our resolver and Mustache (JSON escape) disagree on the output');
  JSON.parse(ours);

  const rounds = quick ? 3 : 5;
  const roundMs = quick ? 300 : 1000;
  const best = Object.fromEntries(Object.keys(contenders).map((k) => [k, 0]));
  for (const fn of Object.values(contenders)) timeFor(fn, quick ? 100 : 300); // warm-up (JIT)
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(contenders)) best[name] = Math.max(best[name], timeFor(fn, roundMs));
  }
  const ratio = best['ours (json context)'] / best['mustache (JSON escape)'];
  return {
    template_bytes: Buffer.byteLength(template),
    references: REFERENCES,
    output_identical_to_mustache_json_escape: true,
    rounds,
    round_ms: roundMs,
    ops_per_s: Object.fromEntries(Object.entries(best).map(([k, v]) => [k, Math.round(v)])),
    ratio_ours_to_mustache_json: Math.round(ratio * 100) / 100,
    ratio_ours_to_mustache_html:
      Math.round((best['ours (json context)'] / best['mustache (default HTML escape)']) * 100) / 100,
    template,
  };
}

async function redisAnswers(url) {
  const cache = createRedisCache(url, { prefix: 'bench-probe:', commandTimeoutMs: 500 });
  try {
    for (let i = 0; i < 10; i++) {
      if (await cache.ping()) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  } finally {
    await cache.close();
  }
}

/** `resolution.resolve` over tRPC with a warm cache, driven by autocannon. */
async function resolveThroughput({ quick, template }) {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = await redisAnswers(redisUrl);
  const dataDir = await mkdtemp(join(tmpdir(), 'runbook-bench-resolver-'));
  const prefix = `runbook:bench:${randomBytes(4).toString('hex')}:`;
  const platform = await startPlatform({
    dataDir,
    ports: {
      gateway: await freePort(),
      identity: await freePort(),
      secrets: await freePort(),
      catalog: await freePort(),
    },
    env: { LOG_LEVEL: 'warn' },
    serviceEnv: { secrets: { SECRETS_CACHE_PREFIX: prefix, ...(redis ? { REDIS_URL: redisUrl } : {}) } },
    output: 'ignore',
  });
  try {
    const values = makeValues();
    const headers = { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' };
    for (const [name, value] of Object.entries(values)) {
      const res = await fetch(`${platform.gatewayUrl}/core/system_parameters`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ data: { type: 'system_parameter', attributes: { name, value } } }),
      });
      if (res.status !== 201) throw new Error(`creating ${name}: ${res.status} ${await res.text()}`);
    }
    const credential = (await readFile(join(dataDir, 'credentials', 'catalog'), 'utf8')).trim();
    const url = `${platform.urls.secrets}/trpc/resolution.resolve`;
    const body = JSON.stringify({ templates: [{ template, context: 'json' }] });
    const requestHeaders = { authorization: `Bearer ${credential}`, 'content-type': 'application/json' };
    // Warm the cache (and check the answer once).
    const first = await fetch(url, { method: 'POST', headers: requestHeaders, body });
    const out = await first.json();
    if (first.status !== 200) throw new Error(`resolve: ${first.status} ${JSON.stringify(out)}`);
    const resolved = JSON.parse(out.result.data.results[0]);
    if (!JSON.stringify(resolved).includes(values.param_02)) throw new Error('resolve returned something else');

    const connections = 10;
    const duration = quick ? 3 : 8;
    const options = { url, method: 'POST', headers: requestHeaders, body, connections };
    await autocannon({ ...options, duration: 1 });
    const result = await autocannon({ ...options, duration });
    return {
      cache: redis ? 'redis' : 'in-process',
      database: 'sqlite',
      connections,
      duration_s: duration,
      requests_per_s: Math.round(result.requests.average),
      references_per_s: Math.round(result.requests.average * REFERENCES),
      latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
      requests: result.requests.total,
      non_2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    };
  } finally {
    await platform.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Runs both measurements, prints them, and writes bench/results/resolver.json.
 * @param {{quick?: boolean}} [options] `quick`: shorter rounds (about 15 s instead of 40 s).
 * @returns {Promise<object>} the results written to resolver.json.
 */
export async function runResolverBench({ quick = false } = {}) {
  const micro = await resolverVsMustache({ quick });
  const e2e = await resolveThroughput({ quick, template: micro.template });
  const { template: _template, ...microResult } = micro;
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    quick,
    resolver_vs_mustache: microResult,
    resolve_over_trpc: e2e,
  };
  console.log(
    `\n## Resolver: ${microResult.template_bytes}-byte JSON payload, ${REFERENCES} references (best of ${microResult.rounds} rounds)`,
  );
  console.table(Object.entries(microResult.ops_per_s).map(([contender, ops]) => ({ contender, 'ops/s': ops })));
  console.log(
    `ratio ours / Mustache (JSON escape, identical output): ${microResult.ratio_ours_to_mustache_json}×; ` +
      `ours / Mustache (HTML escape): ${microResult.ratio_ours_to_mustache_html}×`,
  );
  console.log(`\n## resolution.resolve over tRPC, warm ${e2e.cache} cache, ${e2e.connections} connections`);
  console.table([
    {
      'req/s': e2e.requests_per_s,
      'references/s': e2e.references_per_s,
      'p50 ms': e2e.latency_ms.p50,
      'p99 ms': e2e.latency_ms.p99,
      'non-2xx': e2e.non_2xx,
      errors: e2e.errors,
    },
  ]);
  await mkdir(join(here, 'results'), { recursive: true });
  await writeFile(join(here, 'results', 'resolver.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.error('[bench] wrote bench/results/resolver.json');
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  await runResolverBench({ quick: values.quick });
}
