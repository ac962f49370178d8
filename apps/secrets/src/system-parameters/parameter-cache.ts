/**
 * Sealed parameters by name, cache-aside (DESIGN §5). The shared cache (Redis) holds, per
 * parameter, never plaintext:
 *
 * - `param:<name>` — `{ciphertext, key_id, version, secret, gen}` (TTL `config.cacheTtlMs`);
 * - `gen:<name>` — the parameter's *generation*: a random token that every write replaces (TTL
 *   {@link generationTtlMs}); absent until the first write seen by the cache.
 *
 * Reading N names costs one `MGET` of the 2N keys. An entry is used only when its `gen` equals the
 * current `gen:<name>` (both absent counts as equal); otherwise it is a miss. The misses cost one
 * database query (`WHERE name IN (…)`) and one `MSET` that stores each row with the generation the
 * `MGET` saw *before* the query.
 *
 * Writes call {@link invalidateParameters} after they commit and before they return: a fresh
 * generation token per name, then `DEL param:<name>`, then `PUBLISH invalidate <name>`.
 *
 * Why this closes the cross-replica race (a read on replica B loads the old row, a write on
 * replica A commits and invalidates, then B's fill lands after the invalidation): B's `MGET`
 * happened before B's query, which happened before A's commit, which happened before A replaced
 * the generation. So B's fill carries a generation that is no longer current — and, since tokens
 * are random and never reused, never will be again — and every later read treats it as a miss.
 * The one remaining way back is the generation key expiring while the stale entry lives; fills
 * that took longer than {@link FILL_DEADLINE_MS} from `MGET` to `MSET` are dropped, and
 * `generationTtlMs ≥ cacheTtlMs + FILL_DEADLINE_MS` rules that out.
 *
 * Concurrent misses for one name in this process share one database read — but only misses that
 * observed the same generation: a caller that saw a newer generation than a read in flight (a
 * write landed in between, possibly on another replica) starts its own read. When the cache is
 * failing, nothing is shared (there is no generation to compare) and nothing is filled.
 *
 * No in-process layer sits in front of the shared cache: pub/sub delivery is asynchronous, so a
 * write returning could not guarantee every replica had dropped its copy — the guarantee
 * "the very next resolution on every replica sees the new value" costs exactly the one `MGET`.
 * The `invalidate` channel is published for other consumers (and future local layers).
 */
import { randomBytes } from 'node:crypto';
import type { SecretsDeps } from '../deps.js';
import { findSealedParameters } from './system-parameters.repository.js';

/** A parameter as resolution needs it; the value is still encrypted. */
export interface SealedParameter {
  ciphertext: string;
  key_id: string;
  version: number;
  secret: boolean;
}

/** Channel on which writes announce changed names (message: the name). */
export const INVALIDATE_CHANNEL = 'invalidate';

/** A fill whose `MGET` is older than this (ms) is not stored: its generation might have expired meanwhile. */
export const FILL_DEADLINE_MS = 5_000;

/** Lifetime (ms) of a generation token: long enough to outlive every entry filled under an older one. */
export const generationTtlMs = (cacheTtlMs: number): number => 2 * cacheTtlMs + 2 * FILL_DEADLINE_MS;

/** Cache key of a parameter's entry. */
export const entryKey = (name: string) => `param:${name}`;
/** Cache key of a parameter's generation token. */
export const generationKey = (name: string) => `gen:${name}`;

/** What `param:<name>` holds. */
interface CachedEntry extends SealedParameter {
  /** The generation current when the row was read (null: none existed). */
  gen: string | null;
}

/** Reads in flight in this process, by name and then by the generation their callers observed. */
const inFlightByDeps = new WeakMap<SecretsDeps, Map<string, Promise<SealedParameter | null>>>();
function inFlightOf(deps: SecretsDeps): Map<string, Promise<SealedParameter | null>> {
  let map = inFlightByDeps.get(deps);
  if (!map) {
    map = new Map();
    inFlightByDeps.set(deps, map);
  }
  return map;
}
const flightKey = (name: string, gen: string | null) => `${name}\u0000${gen ?? ''}`;

function decodeEntry(raw: string): CachedEntry | null {
  try {
    const v = JSON.parse(raw) as Partial<CachedEntry>;
    if (
      typeof v.ciphertext === 'string' &&
      typeof v.key_id === 'string' &&
      typeof v.version === 'number' &&
      typeof v.secret === 'boolean' &&
      (typeof v.gen === 'string' || v.gen === null)
    ) {
      return v as CachedEntry;
    }
  } catch {
    /* a foreign or corrupt entry is a miss */
  }
  return null;
}

const sealedOf = (e: CachedEntry): SealedParameter => ({
  ciphertext: e.ciphertext,
  key_id: e.key_id,
  version: e.version,
  secret: e.secret,
});

/**
 * One database query for `names`, then (unless the cache failed or the read was slow) one `MSET`
 * storing each found row under the generation observed for it.
 */
async function readAndFill(
  deps: SecretsDeps,
  names: readonly string[],
  observed: ReadonlyMap<string, string | null>,
  startedAt: number,
  fill: boolean,
): Promise<Map<string, SealedParameter>> {
  const rows = await findSealedParameters(deps.db, names);
  const found = new Map<string, SealedParameter>();
  for (const row of rows) {
    found.set(row.name, {
      ciphertext: row.value_ciphertext,
      key_id: row.key_id,
      version: Number(row.version),
      secret: Boolean(row.secret),
    });
  }
  if (fill && performance.now() - startedAt <= FILL_DEADLINE_MS) {
    const entries: Array<[string, string]> = [];
    for (const [name, sealed] of found) {
      const entry: CachedEntry = { ...sealed, gen: observed.get(name) ?? null };
      entries.push([entryKey(name), JSON.stringify(entry)]);
    }
    await deps.cache.mset(entries, deps.config.cacheTtlMs);
  }
  return found;
}

/**
 * Loads the sealed parameters called `names` (distinct names expected): one `MGET`, plus for the
 * misses one database query and one `MSET`.
 * @returns name → sealed parameter; unknown names are absent.
 */
export async function loadSealedParameters(
  deps: SecretsDeps,
  names: readonly string[],
): Promise<Map<string, SealedParameter>> {
  const result = new Map<string, SealedParameter>();
  if (names.length === 0) return result;
  const startedAt = performance.now();
  const failuresBefore = deps.cache.stats.failures;
  const keys: string[] = [];
  for (const name of names) keys.push(entryKey(name), generationKey(name));
  const cached = await deps.cache.mget(keys);
  // A failed MGET reads as all-null: no generation was really observed.
  const cacheFailed = deps.cache.stats.failures !== failuresBefore;

  const observed = new Map<string, string | null>();
  names.forEach((name, i) => {
    const raw = cached[2 * i];
    const gen = cached[2 * i + 1] ?? null;
    const entry = raw ? decodeEntry(raw) : null;
    if (entry && entry.gen === gen) result.set(name, sealedOf(entry));
    else observed.set(name, gen);
  });
  if (observed.size === 0) return result;

  const misses = [...observed.keys()];
  if (cacheFailed) {
    for (const [name, sealed] of await readAndFill(deps, misses, observed, startedAt, false)) result.set(name, sealed);
    return result;
  }

  const inFlight = inFlightOf(deps);
  const toRead = misses.filter((name) => !inFlight.has(flightKey(name, observed.get(name) ?? null)));
  if (toRead.length > 0) {
    const batch = readAndFill(deps, toRead, observed, startedAt, true);
    for (const name of toRead) {
      const key = flightKey(name, observed.get(name) ?? null);
      const pending = batch.then((found) => found.get(name) ?? null);
      inFlight.set(key, pending);
      const forget = () => {
        if (inFlight.get(key) === pending) inFlight.delete(key);
      };
      pending.then(forget, forget);
    }
  }
  const entries = await Promise.all(
    misses.map((name) => inFlight.get(flightKey(name, observed.get(name) ?? null)) as Promise<SealedParameter | null>),
  );
  misses.forEach((name, i) => {
    const entry = entries[i];
    if (entry) result.set(name, entry);
  });
  return result;
}

/**
 * Reads `names` again from the database, bypassing the cache, for values that did not decrypt:
 * drops their cached entries first (one `DEL`), so an entry that cannot be opened — corrupt, or
 * sealed with a key this replica does not hold — costs one extra read instead of failing every
 * resolution until it expires. Deleting an entry only ever causes a miss, which refills it under
 * the generation then current.
 * @returns name → sealed parameter as stored; names no longer stored are absent.
 */
export async function reloadSealedParameters(
  deps: SecretsDeps,
  names: readonly string[],
): Promise<Map<string, SealedParameter>> {
  await deps.cache.del(names.map(entryKey));
  return readAndFill(deps, names, new Map(), 0, false);
}

/** How often (ms) an invalidation the cache refused is retried. */
export const INVALIDATION_RETRY_MS = 250;

/** One attempt: fresh generations (one `MSET`), `DEL` of the entries, a `PUBLISH` per name. @returns false if the cache failed. */
async function tryInvalidate(deps: SecretsDeps, names: readonly string[]): Promise<boolean> {
  const failuresBefore = deps.cache.stats.failures;
  const token = randomBytes(12).toString('base64url');
  await deps.cache.mset(
    names.map((name) => [generationKey(name), token]),
    generationTtlMs(deps.config.cacheTtlMs),
  );
  const deleted = await deps.cache.del(names.map(entryKey));
  const ok = deleted && deps.cache.stats.failures === failuresBefore;
  await Promise.all(names.map((name) => deps.cache.publish(INVALIDATE_CHANNEL, name)));
  return ok;
}

interface PendingInvalidations {
  names: Set<string>;
  /** When the latest refused invalidation happened (`deps.now()`). */
  lastFailureAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}
const pendingByDeps = new WeakMap<SecretsDeps, PendingInvalidations>();

/**
 * Retries refused invalidations every {@link INVALIDATION_RETRY_MS} until the cache accepts them,
 * or until `cacheTtlMs` after the latest refusal — by then every entry cached before it has expired.
 */
function retryLater(deps: SecretsDeps, names: readonly string[]): void {
  let pending = pendingByDeps.get(deps);
  if (!pending) {
    pending = { names: new Set(), lastFailureAt: 0, timer: undefined };
    pendingByDeps.set(deps, pending);
  }
  const state = pending;
  for (const name of names) state.names.add(name);
  state.lastFailureAt = deps.now();
  if (state.timer) return;
  const attempt = async () => {
    state.timer = undefined;
    const batch = [...state.names];
    state.names.clear();
    if (batch.length === 0) return;
    if (await tryInvalidate(deps, batch)) {
      if (state.names.size > 0) state.timer = setTimeout(attempt, INVALIDATION_RETRY_MS).unref();
      return;
    }
    if (deps.now() - state.lastFailureAt >= deps.config.cacheTtlMs) return;
    for (const name of batch) state.names.add(name);
    state.timer = setTimeout(attempt, INVALIDATION_RETRY_MS).unref();
  };
  state.timer = setTimeout(attempt, INVALIDATION_RETRY_MS).unref();
}

/**
 * Makes every cached entry of `names` stale on every replica: a fresh generation token per name
 * (one `MSET`), then `DEL` of the entries and a `PUBLISH` per name on {@link INVALIDATE_CHANNEL}.
 * Call after a write commits and before it returns. Never throws for cache failures: the
 * invalidation is then retried in the background every {@link INVALIDATION_RETRY_MS} until the
 * cache accepts it (meanwhile, and at most `cacheTtlMs`, replicas that can reach the cache may
 * read entries cached before the write).
 */
export async function invalidateParameters(deps: SecretsDeps, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const inFlight = inFlightOf(deps);
  for (const key of [...inFlight.keys()]) {
    // Reads in flight in this process started before the commit: nobody may join them any more.
    if (names.includes(key.slice(0, key.indexOf('\u0000')))) inFlight.delete(key);
  }
  if (!(await tryInvalidate(deps, names))) retryLater(deps, names);
}
