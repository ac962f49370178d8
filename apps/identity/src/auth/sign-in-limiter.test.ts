import { redisDump, redisTestUrl, testCaches, uniquePrefix } from '@runbook/cache/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSignInLimiter, type SignInLimiter } from './sign-in-limiter.js';

const open: SignInLimiter[] = [];
/** A limiter; one given a reachable Redis is returned once connected (before, it counts in memory). */
const limiter = async (options: Parameters<typeof createSignInLimiter>[0]) => {
  const l = createSignInLimiter(options);
  open.push(l);
  if (options?.redisUrl === redisTestUrl()) await vi.waitFor(async () => expect(await l.ping()).toBe(true));
  return l;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(await testCaches())('sign-in limiter counting in %s', (kind) => {
  const redisUrl = kind === 'redis' ? redisTestUrl() : undefined;

  it('refuses attempts beyond max until the window ends, counts keys apart, and forgets on reset', async () => {
    const l = await limiter({ max: 2, windowSeconds: 60, redisUrl, keyPrefix: uniquePrefix() });
    expect(await l.attempt('a@example.com|10.0.0.1')).toEqual({ attempts: 1, retryAfter: null });
    expect(await l.attempt('a@example.com|10.0.0.1')).toEqual({ attempts: 2, retryAfter: null });
    const refused = await l.attempt('a@example.com|10.0.0.1');
    expect(refused.attempts).toBe(3);
    expect(refused.retryAfter).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
    expect(await l.attempt('a@example.com|10.0.0.2')).toEqual({ attempts: 1, retryAfter: null });
    await l.reset('a@example.com|10.0.0.1');
    expect(await l.attempt('a@example.com|10.0.0.1')).toEqual({ attempts: 1, retryAfter: null });
  });

  it('lets exactly max attempts of a parallel burst through', async () => {
    const l = await limiter({ max: 5, windowSeconds: 60, redisUrl, keyPrefix: uniquePrefix() });
    const results = await Promise.all(Array.from({ length: 20 }, () => l.attempt('burst')));
    expect(results.filter((r) => r.retryAfter === null)).toHaveLength(5);
  });

  it('starts a new window after the old one ends', async () => {
    const l = await limiter({ max: 1, windowSeconds: 1, redisUrl, keyPrefix: uniquePrefix() });
    await l.attempt('k');
    expect((await l.attempt('k')).retryAfter).toBe(1);
    await sleep(1100);
    expect(await l.attempt('k')).toEqual({ attempts: 1, retryAfter: null });
  });
});

describe.runIf((await testCaches()).includes('redis'))('sign-in limiter shared through Redis', () => {
  it('counts failures across identity replicas, and stores neither email nor IP', async () => {
    const keyPrefix = uniquePrefix();
    const replicaA = await limiter({ max: 3, redisUrl: redisTestUrl(), keyPrefix });
    const replicaB = await limiter({ max: 3, redisUrl: redisTestUrl(), keyPrefix });
    await replicaA.attempt('victim@example.com|10.9.9.9');
    await replicaB.attempt('victim@example.com|10.9.9.9');
    expect(await replicaA.attempt('victim@example.com|10.9.9.9')).toEqual({ attempts: 3, retryAfter: null });
    expect((await replicaB.attempt('victim@example.com|10.9.9.9')).retryAfter).toBeGreaterThanOrEqual(59);
    const stored = JSON.stringify(await redisDump(redisTestUrl(), keyPrefix));
    expect(stored).toContain(keyPrefix);
    expect(stored).not.toContain('victim');
    expect(stored).not.toContain('10.9.9.9');
    await replicaB.reset('victim@example.com|10.9.9.9');
    expect(await replicaA.attempt('victim@example.com|10.9.9.9')).toEqual({ attempts: 1, retryAfter: null });
  });

  it('keeps limiting in process memory while Redis is unreachable', async () => {
    // Nothing listens on port 1: every Redis command fails at once (no offline queue).
    const l = await limiter({ max: 2, redisUrl: 'redis://127.0.0.1:1', keyPrefix: uniquePrefix() });
    expect(await l.ping()).toBe(false);
    expect(await l.attempt('k')).toEqual({ attempts: 1, retryAfter: null });
    expect(await l.attempt('k')).toEqual({ attempts: 2, retryAfter: null });
    expect((await l.attempt('k')).retryAfter).toBeGreaterThanOrEqual(59);
  });
});
