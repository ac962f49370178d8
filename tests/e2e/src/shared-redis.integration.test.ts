/**
 * Two platforms on one Redis (MySQL + Redis), each with its own `REDIS_PREFIX`: cached
 * authentications are keyed by the credential's hash only, so under one prefix a token of one
 * platform would be accepted by the other for as long as the first platform's entry lives. Also
 * checks that every key space of a platform (identity's cache and sign-in counters, the services'
 * authentication tier, secrets' parameter cache, the gateway's rate-limit counters) lives under its
 * prefix.
 */
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisUrl, startTestPlatform, type TestPlatform, useRedis } from './support/platform.js';
import { redisCommands } from './support/redis.js';

const runs = (await testDialects()).includes('mysql') && (await useRedis());

describe.runIf(runs)('two platforms sharing one Redis', () => {
  let a: TestPlatform;
  let b: TestPlatform;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestPlatform('mysql'), startTestPlatform('mysql')]);
    expect(a.redis && b.redis).toBe(true);
    expect(a.redisPrefix).not.toBe(b.redisPrefix);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("never accepts one platform's token on the other, however recently the first cached it", async () => {
    // Catalog (runbooks) and secrets (system parameters) each authenticate through the shared tier;
    // identity caches the lookup too. Each call on the second platform follows the first within 1 s.
    for (const path of ['/core/runbooks', '/core/system_parameters']) {
      expect((await a.as(a.adminToken)('GET', path)).status, `${path} on its own platform`).toBe(200);
      const foreign = await b.as(a.adminToken)('GET', path);
      expect(foreign.status, `${path} on the other platform`).toBe(401);
      expect(foreign.body.errors[0].code).toBe('unauthorized');
      expect((await b.as(b.adminToken)('GET', path)).status).toBe(200);
      expect((await a.as(b.adminToken)('GET', path)).status).toBe(401);
    }
  });

  it('keeps every key of a platform under its REDIS_PREFIX (defaults derived from it)', async () => {
    const admin = a.as(a.adminToken);
    const created = await admin('POST', '/core/system_parameters', {
      data: { type: 'system_parameter', attributes: { name: 'shared_redis_probe', value: 'v' } },
    });
    expect(created.status).toBe(201);
    const preview = await admin('POST', '/core/system_parameters/preview', {
      data: { template: '{"x": "{{system.shared_redis_probe}}"}', context: 'json' },
    });
    expect(preview.status).toBe(200);
    const [keys] = (await redisCommands(redisUrl, [['KEYS', `${a.redisPrefix}*`]])) as [string[]];
    const spaces = new Set(keys.map((key) => key.slice(a.redisPrefix.length).split(':')[0]));
    expect([...spaces].sort()).toEqual(expect.arrayContaining(['auth', 'gateway', 'identity', 'secrets']));
    expect(keys).toContain(`${a.redisPrefix}secrets:param:shared_redis_probe`);
    expect(keys.some((key) => key.startsWith(`${a.redisPrefix}gateway:rate-limit:`))).toBe(true);
  });

  it('counts failed sign-ins in Redis under the platform prefix, hashed, apart from the other platform', async () => {
    const attempt = (platform: TestPlatform) =>
      fetch(`${platform.base}/settings/api/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'shared-redis@example.com', password: 'guess guess guess' }),
      });
    for (let i = 0; i < 5; i++) expect((await attempt(a)).status).toBe(401);
    expect((await attempt(a)).status).toBe(429);
    expect((await attempt(b)).status).toBe(401); // B counts its own attempts
    const [keys] = (await redisCommands(redisUrl, [['KEYS', `${a.redisPrefix}identity:sign-in:*`]])) as [string[]];
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain('shared-redis');
    const ready = await fetch(`${a.urls.identity}/readyz`).then((r) => r.json());
    expect(ready).toMatchObject({ status: 'ready', checks: { sign_in_limiter: true } });
  });
});
