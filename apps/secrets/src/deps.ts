/** The secrets service's dependencies, built once by `index.ts` (or by tests) and passed down. */
import type { Cache } from '@runbook/cache';
import type { Principal } from '@runbook/contracts';
import type { Logger } from '@runbook/rpc';
import type { Kysely } from 'kysely';
import type { Keyring } from './crypto/encryption.js';
import type { Database } from './db/database.js';

/** Tunables of the service (from env in production). */
export interface SecretsConfig {
  /** Most system parameters the instance accepts. */
  maxParameters: number;
  /** Lifetime of cached ciphertexts (ms); see `SECRETS_CACHE_TTL_MS`. */
  cacheTtlMs: number;
}

/** Everything the service's code needs; nothing is created at import time. */
export interface SecretsDeps {
  db: Kysely<Database>;
  /** Shared cache (Redis in production): holds ciphertext + version per parameter, never plaintext. */
  cache: Cache;
  keyring: Keyring;
  /**
   * Resolves a bearer credential to its principal (identity's cached authenticator in production).
   * @throws {AppError} 401 for an invalid credential, 503 when identity is unreachable.
   */
  authenticate: (credential: string) => Promise<Principal>;
  logger: Logger;
  /** Current time, epoch ms. */
  now: () => number;
  config: SecretsConfig;
}

/** Defaults matching the env defaults (`SECRETS_MAX_PARAMETERS`, `SECRETS_CACHE_TTL_MS`). */
export const defaultSecretsConfig: SecretsConfig = { maxParameters: 10_000, cacheTtlMs: 60_000 };
