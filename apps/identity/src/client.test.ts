import { createMemoryCache } from '@runbook/cache';
import { createTestCache, redisCommands, redisTestUrl, testCaches, uniquePrefix } from '@runbook/cache/testing';
import type { Principal } from '@runbook/contracts';
import { describe, expect, it } from 'vitest';
import { createCachedAuthenticator, type IdentityClient } from './client.js';

/** A stand-in for identity's tRPC client that counts `auth.authenticate` calls. */
function fakeIdentity(principal: Principal) {
  const calls: string[] = [];
  const client = {
    auth: {
      authenticate: {
        query: async ({ credential }: { credential: string }) => {
          calls.push(credential);
          await new Promise((r) => setTimeout(r, 5));
          return principal;
        },
      },
    },
  } as unknown as IdentityClient;
  return { client, calls };
}

const user: Principal = {
  kind: 'user',
  user_id: '1',
  token_id: '1',
  roles: [{ role: 'developer', workspace_id: null }],
};

describe('createCachedAuthenticator', () => {
  it('asks identity once per credential while the cache is warm, however many requests arrive', async () => {
    const { client, calls } = fakeIdentity(user);
    const authenticate = createCachedAuthenticator(client, createMemoryCache({ prefix: 't:' }), 1000);
    const results = await Promise.all(Array.from({ length: 100 }, () => authenticate('rbt_token_a')));
    expect(results.every((p) => p.kind === 'user')).toBe(true);
    expect(calls).toEqual(['rbt_token_a']);
    for (let i = 0; i < 50; i++) await authenticate('rbt_token_a');
    expect(calls).toHaveLength(1);
    await authenticate('rbt_token_b');
    expect(calls).toEqual(['rbt_token_a', 'rbt_token_b']);
  });

  it('asks again once the TTL (the revocation bound) has passed', async () => {
    const { client, calls } = fakeIdentity(user);
    const authenticate = createCachedAuthenticator(client, createMemoryCache({ prefix: 't:' }), 30);
    await authenticate('rbt_token_a');
    await new Promise((r) => setTimeout(r, 60));
    await authenticate('rbt_token_a');
    expect(calls).toHaveLength(2);
  });

  it('never keeps the credential itself as a cache key', async () => {
    const { client } = fakeIdentity(user);
    const cache = createMemoryCache({ prefix: 't:' });
    const keys: string[] = [];
    const spying = {
      ...cache,
      set: async (key: string, value: string, ttl: number) => {
        keys.push(key);
        await cache.set(key, value, ttl);
      },
    };
    const authenticate = createCachedAuthenticator(client, spying, 1000);
    await authenticate('rbt_secret_credential');
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain('rbt_secret_credential');
  });

  it('serves warm requests from process memory: no shared-cache round trip after the first lookup', async () => {
    const { client, calls } = fakeIdentity(user);
    const shared = createMemoryCache({ prefix: 't:' });
    const authenticate = createCachedAuthenticator(client, shared, 1000);
    await authenticate('rbt_token_a');
    expect(shared.stats.roundTrips).toBe(2); // the miss, then the answer stored for other replicas
    for (let i = 0; i < 100; i++) await authenticate('rbt_token_a');
    expect(shared.stats.roundTrips).toBe(2);
    expect(calls).toHaveLength(1);
  });

  it("reuses another replica's answer from the shared cache, only until that answer's expiry", async () => {
    const identityA = fakeIdentity(user);
    const identityB = fakeIdentity(user);
    const shared = createMemoryCache({ prefix: 't:' });
    const replicaA = createCachedAuthenticator(identityA.client, shared, 1000);
    const replicaB = createCachedAuthenticator(identityB.client, shared, 1000);
    await replicaA('rbt_token_a');
    await new Promise((r) => setTimeout(r, 500));
    // B copies A's entry with the ≤ 500 ms A's answer has left, not a fresh 1000 ms.
    await replicaB('rbt_token_a');
    expect(identityB.calls).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 600));
    await replicaB('rbt_token_a');
    expect(identityB.calls).toHaveLength(1);
  });

  it('hands out frozen principals (one object serves many requests)', async () => {
    const { client } = fakeIdentity({ ...user, roles: [{ role: 'developer', workspace_id: null }] });
    const authenticate = createCachedAuthenticator(client, createMemoryCache({ prefix: 't:' }), 1000);
    const principal = await authenticate('rbt_token_a');
    expect(Object.isFrozen(principal)).toBe(true);
    expect(principal.kind === 'user' && Object.isFrozen(principal.roles)).toBe(true);
    expect(principal.kind === 'user' && Object.isFrozen(principal.roles[0])).toBe(true);
  });

  it('caches nothing with a TTL of 0', async () => {
    const { client, calls } = fakeIdentity(user);
    const authenticate = createCachedAuthenticator(client, createMemoryCache({ prefix: 't:' }), 0);
    await authenticate('rbt_token_a');
    await authenticate('rbt_token_a');
    expect(calls).toHaveLength(2);
  });
});

describe.each(await testCaches())('createCachedAuthenticator on the %s cache', (kind) => {
  it('costs the shared cache two round trips per credential per TTL (miss, store) and none when warm', async () => {
    const prefix = uniquePrefix();
    const shared = await createTestCache(kind, prefix);
    try {
      const { client, calls } = fakeIdentity(user);
      const authenticate = createCachedAuthenticator(client, shared, 1000);
      await Promise.all(Array.from({ length: 20 }, () => authenticate('rbt_token_a')));
      expect(shared.stats.roundTrips).toBe(2);
      for (let i = 0; i < 200; i++) await authenticate('rbt_token_a');
      expect(shared.stats.roundTrips).toBe(2);
      expect(calls).toHaveLength(1);
      // A second replica on the same shared cache: one GET, no identity call.
      const replica = createCachedAuthenticator(fakeIdentity(user).client, shared, 1000);
      await replica('rbt_token_a');
      expect(shared.stats.roundTrips).toBe(3);
      if (kind === 'redis') {
        const [keys] = (await redisCommands(redisTestUrl(), [['KEYS', `${prefix}*`]])) as [string[]];
        expect(keys).toHaveLength(1);
        expect(keys[0]).not.toContain('rbt_token_a');
        const [ttl] = (await redisCommands(redisTestUrl(), [['PTTL', keys[0] as string]])) as [number];
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(1000);
        await redisCommands(redisTestUrl(), [['DEL', ...keys]]);
      }
    } finally {
      await shared.close();
    }
  });
});
