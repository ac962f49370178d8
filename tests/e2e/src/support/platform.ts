/**
 * Shared by the identity and access end-to-end tests: a platform per dialect (SQLite, or MySQL with
 * Redis — required when `RUNBOOK_REQUIRE_REDIS=1`), a JSON client and extra gateway processes.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import type { Dialect } from '@runbook/db';
import { createEmptyMysqlDatabase } from '@runbook/db/testing';
// @ts-expect-error — plain ESM script without type declarations
import { startPlatform } from '../../../../scripts/start-local.mjs';
import { redisAnswers } from './redis.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A free loopback TCP port. */
export async function freePort(): Promise<number> {
  return new Promise((res, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => res(port));
    });
  });
}

/**
 * Whether the MySQL variant also runs against Redis: when Redis answers, or when
 * `RUNBOOK_REQUIRE_REDIS=1` (then an unreachable Redis fails the test instead of skipping it).
 * @throws {Error} when Redis is required but unreachable.
 */
export async function useRedis(): Promise<boolean> {
  const up = await redisAnswers(redisUrl);
  if (!up && process.env.RUNBOOK_REQUIRE_REDIS === '1') {
    throw new Error(`Redis at ${redisUrl} is not reachable (required: RUNBOOK_REQUIRE_REDIS=1)`);
  }
  return up;
}

/** A well-formed user app token (valid prefix and checksum) that identity never issued. */
export function unknownToken(): string {
  const random = Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
  return `rbt_${random}${crc32(`rbt_${random}`).toString(16).padStart(8, '0')}`;
}

/** An HTTP response with its JSON body parsed. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body (any shape: the tests assert it). */
  body: any;
}

/**
 * Calls `base + path` with a JSON body (a string body is sent as it is, e.g. malformed JSON).
 * `token` null sends no Authorization header; `headers` may override it (e.g. a malformed one).
 */
export async function call(
  base: string,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * Sends `method base+path` as `token` with headers announcing a JSON body of `bytes` bytes, without
 * sending the body, and resolves the answer. For body-limit checks: the gateway answers 413 from
 * `Content-Length` and closes the connection without reading the body, so a client still writing a
 * real oversized body may get EPIPE instead of the answer.
 */
export function callWithOversizedBody(
  base: string,
  token: string,
  method: string,
  path: string,
  bytes: number,
): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': bytes },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === 'string') headers.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers, body: text ? JSON.parse(text) : undefined });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

/** A running platform for one dialect. */
export interface TestPlatform {
  base: string;
  urls: Record<'identity' | 'secrets' | 'catalog' | 'gateway', string>;
  adminToken: string;
  /** Whether the services use Redis (MySQL variant with Redis reachable). */
  redis: boolean;
  /** This platform's `REDIS_PREFIX` (every service's keys in Redis start with it). */
  redisPrefix: string;
  /** Calls the gateway as `token` (see {@link call}). */
  as(
    token: string | null,
  ): (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse>;
  stop(): Promise<void>;
}

/**
 * Starts the four services on `dialect`: SQLite files, or one MySQL database per service plus Redis
 * (when reachable or required).
 * @param env extra environment per service.
 */
export async function startTestPlatform(
  dialect: Dialect,
  env: Partial<Record<'identity' | 'secrets' | 'catalog' | 'gateway', Record<string, string>>> = {},
): Promise<TestPlatform> {
  const dataDir = await mkdtemp(join(tmpdir(), 'runbook-e2e-'));
  const drops: Array<() => Promise<void>> = [];
  const serviceEnv: Record<string, Record<string, string>> = {};
  const redis = dialect === 'mysql' && (await useRedis());
  // Platforms share one Redis: keys of one (authentications, ciphertext under its own keys, rate-limit
  // counters) must not reach another — one REDIS_PREFIX per platform, as docs/operations.md asks.
  const prefix = `rbtest:${randomBytes(6).toString('hex')}:`;
  for (const service of ['identity', 'secrets', 'catalog', 'gateway'] as const) {
    serviceEnv[service] = { ...(env[service] ?? {}) };
    if (redis) {
      serviceEnv[service].REDIS_URL = redisUrl;
      serviceEnv[service].REDIS_PREFIX = prefix;
    }
  }
  if (dialect === 'mysql') {
    for (const service of ['identity', 'secrets', 'catalog'] as const) {
      const db = await createEmptyMysqlDatabase();
      drops.push(db.drop);
      (serviceEnv[service] as Record<string, string>).MYSQL_URL = db.url;
    }
  }
  const platform = await startPlatform({
    dataDir,
    ports: {
      gateway: await freePort(),
      identity: await freePort(),
      secrets: await freePort(),
      catalog: await freePort(),
    },
    serviceEnv,
    env: { LOG_LEVEL: 'warn' },
    output: process.env.E2E_LOGS ? 'inherit' : 'ignore',
  });
  const base: string = platform.gatewayUrl;
  return {
    base,
    urls: platform.urls,
    adminToken: platform.adminToken,
    redis,
    redisPrefix: prefix,
    as: (token) => (method, path, body, headers) => call(base, token, method, path, body, headers),
    async stop() {
      await platform.stop();
      for (const drop of drops) await drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts one more gateway process in front of `platform`'s services with extra `env` (e.g. tiny
 * rate limits); resolves its base URL and a stopper.
 */
export async function startGateway(
  platform: TestPlatform,
  env: Record<string, string>,
): Promise<{ base: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'apps', 'gateway', 'dist', 'index.js')], {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      IDENTITY_URL: platform.urls.identity,
      SECRETS_URL: platform.urls.secrets,
      CATALOG_URL: platform.urls.catalog,
      ...(platform.redis ? { REDIS_URL: redisUrl } : {}),
      ...env,
    },
    stdio: ['ignore', process.env.E2E_LOGS ? 'inherit' : 'ignore', process.env.E2E_LOGS ? 'inherit' : 'ignore'],
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill('SIGTERM');
    });
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`gateway exited with code ${child.exitCode}`);
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { base, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error('gateway did not start');
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
