import { createRedisClient } from '@runbook/cache';
import { redisTestUrl, testCaches, uniquePrefix } from '@runbook/cache/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFailureCounter, type FailureCounter, type FailureCounterOptions } from './failure-counter.js';
import { createSignInLimiter } from './sign-in-limiter.js';

const open: FailureCounter[] = [];
const counter = (options: FailureCounterOptions) => {
  const c = createFailureCounter(options);
  open.push(c);
  return c;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
/** Waits until `c` counts in Redis (before connecting, its in-process insurance counts). */
const whenShared = (c: FailureCounter) => vi.waitFor(async () => expect(await c.ping()).toBe(true));

describe.each(await testCaches())('authentication failure counter in %s', (kind) => {
  it('reports once, when a key reaches the threshold in its window, and keys count apart', async () => {
    const keyPrefix = uniquePrefix();
    const c = counter({
      threshold: 3,
      windowSeconds: 60,
      redisUrl: kind === 'redis' ? redisTestUrl() : undefined,
      keyPrefix,
    });
    if (kind === 'redis') await whenShared(c);
    expect([await c.hit('a'), await c.hit('a'), await c.hit('b'), await c.hit('a'), await c.hit('a')]).toEqual([
      null,
      null,
      null,
      3,
      null,
    ]);
  });
});

describe.runIf((await testCaches()).includes('redis'))('authentication failure counter shared through Redis', () => {
  it('reaches the threshold once across identity replicas', async () => {
    const keyPrefix = uniquePrefix();
    const a = counter({ threshold: 4, windowSeconds: 60, redisUrl: redisTestUrl(), keyPrefix });
    const b = counter({ threshold: 4, windowSeconds: 60, redisUrl: redisTestUrl(), keyPrefix });
    await whenShared(a);
    await whenShared(b);
    const reports = [await a.hit('k'), await b.hit('k'), await a.hit('k'), await b.hit('k'), await a.hit('k')];
    expect(reports).toEqual([null, null, null, 4, null]);
  });

  it("shares one Redis connection with the sign-in limiter when handed a client (identity's wiring)", async () => {
    const client = createRedisClient(redisTestUrl());
    const sent = vi.spyOn(client, 'sendCommand');
    const keyPrefix = uniquePrefix();
    const failures = counter({ threshold: 2, windowSeconds: 60, redis: client, keyPrefix: `${keyPrefix}f:` });
    const signIns = createSignInLimiter({ max: 2, windowSeconds: 60, redis: client, keyPrefix: `${keyPrefix}s:` });
    try {
      await whenShared(failures);
      sent.mockClear();
      expect([await failures.hit('k'), await failures.hit('k')]).toEqual([null, 2]);
      const afterFailures = sent.mock.calls.length;
      expect(afterFailures).toBeGreaterThanOrEqual(2);
      expect((await signIns.attempt('k')).attempts).toBe(1);
      expect(sent.mock.calls.length).toBeGreaterThan(afterFailures);
      // Both counted in Redis, each under its own prefix.
      expect((await client.keys(`${keyPrefix}*`)).sort()).toHaveLength(2);
    } finally {
      await signIns.close();
    }
  });

  it('keeps counting in process memory while Redis is unreachable', async () => {
    const c = counter({ threshold: 2, windowSeconds: 60, redisUrl: 'redis://127.0.0.1:1', keyPrefix: uniquePrefix() });
    expect(await c.ping()).toBe(false);
    expect([await c.hit('k'), await c.hit('k')]).toEqual([null, 2]);
  });
});
