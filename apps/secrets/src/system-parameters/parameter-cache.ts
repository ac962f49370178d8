/**
 * Sealed parameters by name, cache-aside (DESIGN §5). The shared cache (Redis) holds, under
 * `param:<name>`, `{ciphertext, key_id, version, secret}` — never plaintext. Loading N names costs
 * one `mget`; the misses cost one database query (`WHERE name IN (…)`) and one `mset`. Concurrent
 * misses for one name in this process share one database read. Writes call
 * {@link invalidateParameters} before they return: `del` + `publish('invalidate', name)`.
 *
 * Staleness bound: a read on another replica that loaded a row just before a write committed can
 * put the old entry back after the write's `del`; it lives at most `config.cacheTtlMs`. Within one
 * process that race is closed by a per-name generation counter.
 */
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

const cacheKey = (name: string) => `param:${name}`;

interface ProcessState {
  inFlight: Map<string, Promise<SealedParameter | null>>;
  /** Bumped on every local invalidation; a read that overlapped one does not refill the cache. */
  generation: Map<string, number>;
}
const states = new WeakMap<SecretsDeps, ProcessState>();
function stateOf(deps: SecretsDeps): ProcessState {
  let state = states.get(deps);
  if (!state) {
    state = { inFlight: new Map(), generation: new Map() };
    states.set(deps, state);
  }
  return state;
}

function decodeEntry(raw: string): SealedParameter | null {
  try {
    const v = JSON.parse(raw) as Partial<SealedParameter>;
    if (
      typeof v.ciphertext === 'string' &&
      typeof v.key_id === 'string' &&
      typeof v.version === 'number' &&
      typeof v.secret === 'boolean'
    ) {
      return v as SealedParameter;
    }
  } catch {
    /* a foreign or corrupt entry is a miss */
  }
  return null;
}

async function readFromDatabase(
  deps: SecretsDeps,
  state: ProcessState,
  names: string[],
): Promise<Map<string, SealedParameter>> {
  const generations = names.map((n) => state.generation.get(n) ?? 0);
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
  const fill: Array<[string, string]> = [];
  names.forEach((name, i) => {
    const entry = found.get(name);
    if (entry && (state.generation.get(name) ?? 0) === generations[i])
      fill.push([cacheKey(name), JSON.stringify(entry)]);
  });
  await deps.cache.mset(fill, deps.config.cacheTtlMs);
  return found;
}

/**
 * Loads the sealed parameters called `names` (distinct names expected).
 * @returns name → sealed parameter; unknown names are absent.
 */
export async function loadSealedParameters(
  deps: SecretsDeps,
  names: readonly string[],
): Promise<Map<string, SealedParameter>> {
  const result = new Map<string, SealedParameter>();
  if (names.length === 0) return result;
  const cached = await deps.cache.mget(names.map(cacheKey));
  const misses: string[] = [];
  names.forEach((name, i) => {
    const raw = cached[i];
    const entry = raw ? decodeEntry(raw) : null;
    if (entry) result.set(name, entry);
    else misses.push(name);
  });
  if (misses.length === 0) return result;

  const state = stateOf(deps);
  const toRead = misses.filter((name) => !state.inFlight.has(name));
  if (toRead.length > 0) {
    const batch = readFromDatabase(deps, state, toRead);
    for (const name of toRead) {
      const pending = batch.then((found) => found.get(name) ?? null);
      state.inFlight.set(name, pending);
      // Forget the read once settled, unless an invalidation already replaced it.
      const forget = () => {
        if (state.inFlight.get(name) === pending) state.inFlight.delete(name);
      };
      pending.then(forget, forget);
    }
  }
  const entries = await Promise.all(misses.map((name) => state.inFlight.get(name) as Promise<SealedParameter | null>));
  misses.forEach((name, i) => {
    const entry = entries[i];
    if (entry) result.set(name, entry);
  });
  return result;
}

/**
 * Drops cached entries of `names` (one `del`) and announces each on {@link INVALIDATE_CHANNEL}.
 * Call after a write commits and before it returns. Never throws for cache failures (the cache
 * degrades; entries then expire within `cacheTtlMs`).
 */
export async function invalidateParameters(deps: SecretsDeps, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const state = stateOf(deps);
  for (const name of names) {
    state.generation.set(name, (state.generation.get(name) ?? 0) + 1);
    state.inFlight.delete(name);
  }
  await deps.cache.del(names.map(cacheKey));
  await Promise.all(names.map((name) => deps.cache.publish(INVALIDATE_CHANNEL, name)));
}
