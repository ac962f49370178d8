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

  it('refuses a key after max failures until its window ends, counts keys apart, and forgets on reset', async () => {
    const l = await limiter({ max: 2, windowSeconds: 60, redisUrl, keyPrefix: uniquePrefix() });
    expect(await l.retryAfter('a@example.com|10.0.0.1')).toBeNull();
    expect(await l.fail('a@example.com|10.0.0.1')).toBe(1);
    expect(await l.retryAfter('a@example.com|10.0.0.1')).toBeNull();
    expect(await l.fail('a@example.com|10.0.0.1')).toBe(2);
    const wait = await l.retryAfter('a@example.com|10.0.0.1');
    expect(wait).toBeGreaterThanOrEqual(59);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await l.retryAfter('a@example.com|10.0.0.2')).toBeNull();
    await l.reset('a@example.com|10.0.0.1');
    expect(await l.retryAfter('a@example.com|10.0.0.1')).toBeNull();
  });

  it('starts a new window after the old one ends', async () => {
    const l = await limiter({ max: 1, windowSeconds: 1, redisUrl, keyPrefix: uniquePrefix() });
    await l.fail('k');
    expect(await l.retryAfter('k')).toBe(1);
    await sleep(1100);
    expect(await l.retryAfter('k')).toBeNull();
    expect(await l.fail('k')).toBe(1);
  });
});

describe.runIf((await testCaches()).includes('redis'))('sign-in limiter shared through Redis', () => {
  it('counts failures across identity replicas, and stores neither email nor IP', async () => {
    const keyPrefix = uniquePrefix();
    const replicaA = await limiter({ max: 3, redisUrl: redisTestUrl(), keyPrefix });
    const replicaB = await limiter({ max: 3, redisUrl: redisTestUrl(), keyPrefix });
    await replicaA.fail('victim@example.com|10.9.9.9');
    await replicaB.fail('victim@example.com|10.9.9.9');
    expect(await replicaA.fail('victim@example.com|10.9.9.9')).toBe(3);
    expect(await replicaB.retryAfter('victim@example.com|10.9.9.9')).toBeGreaterThanOrEqual(59);
    const stored = JSON.stringify(await redisDump(redisTestUrl(), keyPrefix));
    expect(stored).toContain(keyPrefix);
    expect(stored).not.toContain('victim');
    expect(stored).not.toContain('10.9.9.9');
    await replicaB.reset('victim@example.com|10.9.9.9');
    expect(await replicaA.retryAfter('victim@example.com|10.9.9.9')).toBeNull();
  });

  it('keeps limiting in process memory while Redis is unreachable', async () => {
    // Nothing listens on port 1: every Redis command fails at once (no offline queue).
    const l = await limiter({ max: 2, redisUrl: 'redis://127.0.0.1:1', keyPrefix: uniquePrefix() });
    expect(await l.ping()).toBe(false);
    expect(await l.fail('k')).toBe(1);
    expect(await l.fail('k')).toBe(2);
    expect(await l.retryAfter('k')).toBeGreaterThanOrEqual(59);
  });
});
