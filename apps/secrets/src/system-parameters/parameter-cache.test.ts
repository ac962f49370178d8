import { createServer, type Server, Socket } from 'node:net';
import type { Cache } from '@runbook/cache';
import { testDialects } from '@runbook/db/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CREDENTIALS,
  callerFor,
  createSecretsTestKit,
  createTestCache,
  redisCommands,
  redisTestUrl,
  type SecretsTestKit,
  testCaches,
} from '../test-support.js';
import { entryKey, FILL_DEADLINE_MS, generationKey, generationTtlMs, loadSealedParameters } from './parameter-cache.js';

const dialects = await testDialects();
const caches = await testCaches();

/** A cache that forwards to `inner` but can hold the next `mset` (a fill) until released. */
function gatedCache(inner: Cache) {
  let gate: { reached: () => void; released: Promise<void> } | undefined;
  const cache: Cache = {
    kind: inner.kind,
    stats: inner.stats,
    get: (key) => inner.get(key),
    mget: (keys) => inner.mget(keys),
    set: (key, value, ttl) => inner.set(key, value, ttl),
    async mset(entries, ttl) {
      const held = gate;
      gate = undefined;
      if (held) {
        held.reached();
        await held.released;
      }
      return inner.mset(entries, ttl);
    },
    del: (keys) => inner.del(keys),
    publish: (channel, message) => inner.publish(channel, message),
    subscribe: (channel, handler) => inner.subscribe(channel, handler),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  /** Holds the next mset: resolves `reached` when it is called; it proceeds on `release()`. */
  const holdNextFill = () => {
    let release!: () => void;
    let reached!: () => void;
    const reachedPromise = new Promise<void>((r) => {
      reached = r;
    });
    gate = { reached, released: new Promise<void>((r) => (release = r)) };
    return { reached: reachedPromise, release };
  };
  return { cache, holdNextFill };
}

const resolveInput = (name: string) => ({ templates: [{ template: `{{system.${name}}}`, context: 'text' as const }] });

describe.each(dialects.flatMap((d) => caches.map((c) => [d, c] as const)))(
  'parameter cache on %s with a %s cache',
  (dialect, cacheKind) => {
    let kit: SecretsTestKit;
    beforeAll(async () => {
      kit = await createSecretsTestKit(dialect, { cache: cacheKind });
    });
    afterAll(() => kit.destroy());
    afterEach(() => {
      vi.restoreAllMocks();
    });
    const admin = () => kit.caller(CREDENTIALS.admin);

    it('never serves a value a racing read on another replica put back after a write (generations)', async () => {
      await admin().systemParameters.create({ name: 'raced', value: 'old-value' });
      // Replica B: its own deps, the shared database and cache, a gate on its fills.
      const other = await kit.replica();
      const gated = gatedCache(other.deps.cache);
      const b = { ...other.deps, cache: gated.cache };
      const bService = callerFor(b, CREDENTIALS.service);

      // B misses, reads version 1 from the database, and is held just before storing it …
      const held = gated.holdNextFill();
      const racing = bService.resolution.resolve(resolveInput('raced'));
      await held.reached;
      // … while replica A updates the value (commit, then invalidation) and returns.
      await admin().systemParameters.update({ id_or_name: 'raced', value: 'new-value' });
      // Now B's stale fill lands, after A's invalidation.
      held.release();
      expect((await racing).results).toEqual(['old-value']); // B's read began before the write
      const [stale] = await kit.deps.cache.mget([entryKey('raced')]);
      expect(stale).toContain('"version":1'); // the old entry really is back in the cache …

      // … yet the very next resolution on either replica sees the new value, and refills the cache.
      expect((await bService.resolution.resolve(resolveInput('raced'))).results).toEqual(['new-value']);
      expect((await kit.caller(CREDENTIALS.service).resolution.resolve(resolveInput('raced'))).results).toEqual([
        'new-value',
      ]);
      const [fresh] = await kit.deps.cache.mget([entryKey('raced')]);
      expect(fresh).toContain('"version":2');
      kit.queries.count = 0;
      expect((await bService.resolution.resolve(resolveInput('raced'))).results).toEqual(['new-value']);
      expect(kit.queries.count).toBe(0); // warm again
    });

    it('reads a value again from the database when its cached entry does not decrypt, and drops the entry', async () => {
      await admin().systemParameters.create({ name: 'sealed_secret', value: 's3cr3t-value', secret: true });
      await admin().systemParameters.create({ name: 'sealed_plain', value: 'plain-value', secret: false });
      const service = kit.caller(CREDENTIALS.service);
      await service.resolution.resolve(resolveInput('sealed_secret')); // fills both entries …
      await service.resolution.resolve(resolveInput('sealed_plain'));
      // … which then stop decrypting: another ciphertext (sealed under another name) and an unknown key.
      const [secretEntry, plainEntry] = (await kit.deps.cache.mget([
        entryKey('sealed_secret'),
        entryKey('sealed_plain'),
      ])) as [string, string];
      const swapped = { ...JSON.parse(secretEntry), ciphertext: JSON.parse(plainEntry).ciphertext };
      const retired = { ...JSON.parse(plainEntry), key_id: 'retired-key' };
      await kit.deps.cache.mset(
        [
          [entryKey('sealed_secret'), JSON.stringify(swapped)],
          [entryKey('sealed_plain'), JSON.stringify(retired)],
        ],
        60_000,
      );
      kit.queries.count = 0;
      const out = await service.resolution.resolve({
        templates: [{ template: '{{system.sealed_secret}} {{system.sealed_plain}}', context: 'text' }],
      });
      expect(out.results).toEqual(['s3cr3t-value plain-value']);
      expect(out.secret_values).toEqual(['s3cr3t-value']);
      expect(kit.queries.count).toBe(1); // one read of both names
      // The bad entries are gone (refilled by the next read), not served again.
      expect(await kit.deps.cache.mget([entryKey('sealed_secret'), entryKey('sealed_plain')])).toEqual([null, null]);
      await kit.deps.cache.mset([[entryKey('sealed_plain'), JSON.stringify(retired)]], 60_000);
      const preview = await service.systemParameters.preview({ template: 'x={{system.sealed_plain}}' });
      expect(preview.result).toBe('x=plain-value');
    });

    it('does not let a caller that saw a newer generation join a database read started before the write', {
      timeout: 5_000,
    }, async () => {
      await admin().systemParameters.create({ name: 'joined', value: 'before' });
      const other = await kit.replica();
      const gated = gatedCache(other.deps.cache);
      const b = { ...other.deps, cache: gated.cache };
      const bService = callerFor(b, CREDENTIALS.service);

      const held = gated.holdNextFill(); // keeps B's first read in flight (it has read 'before')
      const first = bService.resolution.resolve(resolveInput('joined'));
      await held.reached;
      await admin().systemParameters.update({ id_or_name: 'joined', value: 'after' });
      // Same replica, same name, while the old read is still in flight.
      const second = await bService.resolution.resolve(resolveInput('joined'));
      expect(second.results).toEqual(['after']);
      held.release();
      expect((await first).results).toEqual(['before']);
    });

    it('still shares one database read between concurrent misses that saw the same generation', async () => {
      await admin().systemParameters.create({ name: 'shared_read', value: 'v' });
      await admin().systemParameters.update({ id_or_name: 'shared_read', description: 'has a generation now' });
      kit.queries.count = 0;
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          kit.caller(CREDENTIALS.service).resolution.resolve(resolveInput('shared_read')),
        ),
      );
      expect(results.every((r) => r.results[0] === 'v')).toBe(true);
      expect(kit.queries.count).toBe(1);
    });

    it('drops a fill whose read took longer than FILL_DEADLINE_MS', async () => {
      await admin().systemParameters.create({ name: 'slow_read', value: 'v' });
      await kit.deps.cache.del([entryKey('slow_read')]);
      let now = 1_000;
      vi.spyOn(performance, 'now').mockImplementation(() => {
        const t = now;
        now += FILL_DEADLINE_MS + 1;
        return t;
      });
      const before = kit.deps.cache.stats.roundTrips;
      const found = await loadSealedParameters(kit.deps, ['slow_read']);
      expect(found.get('slow_read')?.version).toBe(1);
      expect(kit.deps.cache.stats.roundTrips - before).toBe(1); // the MGET only: no fill
      expect(await kit.deps.cache.mget([entryKey('slow_read')])).toEqual([null]);
    });

    it('stores generations with a TTL that outlives the entries, and never plaintext', async () => {
      await admin().systemParameters.create({ name: 'gen_ttl', value: 'gen-ttl-plaintext' });
      const [gen] = await kit.deps.cache.mget([generationKey('gen_ttl')]);
      expect(gen).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(generationTtlMs(kit.deps.config.cacheTtlMs)).toBeGreaterThanOrEqual(
        kit.deps.config.cacheTtlMs + FILL_DEADLINE_MS,
      );
      if (cacheKind === 'redis') {
        const [pttl] = (await redisCommands(redisTestUrl(), [
          ['PTTL', `${kit.prefix}${generationKey('gen_ttl')}`],
        ])) as [number];
        expect(pttl).toBeGreaterThan(kit.deps.config.cacheTtlMs + FILL_DEADLINE_MS);
      }
    });
  },
);

/** A TCP proxy in front of Redis that can be cut (connections dropped, new ones refused) and restored. */
async function redisProxy(target: URL): Promise<{ url: string; cut(): void; restore(): Promise<void>; close(): void }> {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = new Socket();
        sockets.add(client).add(upstream);
        upstream.connect(Number(target.port || 6379), target.hostname);
        client.pipe(upstream).pipe(client);
        for (const s of [client, upstream]) {
          s.on('error', () => {});
          s.on('close', () => {
            sockets.delete(s);
            client.destroy();
            upstream.destroy();
          });
        }
      });
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        port = typeof address === 'object' && address ? address.port : port;
        resolve();
      });
    });
  await listen();
  return {
    url: `redis://127.0.0.1:${port}`,
    cut() {
      server.close();
      for (const s of sockets) s.destroy();
    },
    restore: listen,
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

describe.runIf(caches.includes('redis'))('when Redis goes away and comes back', () => {
  let kit: SecretsTestKit;
  beforeAll(async () => {
    kit = await createSecretsTestKit('sqlite', { cache: 'redis' });
  });
  afterAll(() => kit.destroy());

  it('keeps resolving from the database within the command timeout, and recovers by itself', async () => {
    const proxy = await redisProxy(new URL(redisTestUrl()));
    const cache = await createTestCache('redis', kit.prefix, proxy.url);
    try {
      const deps = { ...kit.deps, cache };
      const service = callerFor(deps, CREDENTIALS.service);
      await callerFor(deps, CREDENTIALS.admin).systemParameters.create({ name: 'outage', value: 'survives' });
      await service.resolution.resolve(resolveInput('outage'));
      kit.queries.count = 0;
      await service.resolution.resolve(resolveInput('outage'));
      expect(kit.queries.count).toBe(0); // warm through the proxy

      proxy.cut();
      const failuresBefore = cache.stats.failures;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        expect((await service.resolution.resolve(resolveInput('outage'))).results).toEqual(['survives']);
        expect(performance.now() - started).toBeLessThan(1_000);
      }
      expect(cache.stats.failures).toBeGreaterThan(failuresBefore);
      // Writes keep working too (their invalidation is dropped and counted).
      await callerFor(deps, CREDENTIALS.admin).systemParameters.update({ id_or_name: 'outage', value: 'changed' });
      expect((await service.resolution.resolve(resolveInput('outage'))).results).toEqual(['changed']);

      await proxy.restore();
      // ioredis reconnects in the background (capped backoff 2 s) and the refused invalidation is
      // retried: the cache serves the new value and warms up again by itself, long before the TTL.
      const deadline = Date.now() + 8_000;
      let warm = false;
      while (!warm && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        await service.resolution.resolve(resolveInput('outage'));
        kit.queries.count = 0;
        const out = await service.resolution.resolve(resolveInput('outage'));
        warm = kit.queries.count === 0 && out.results[0] === 'changed';
      }
      expect(warm).toBe(true);
    } finally {
      await cache.close();
      proxy.close();
    }
  }, 20_000);
});
