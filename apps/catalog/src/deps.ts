/** Catalog's dependencies, built once by `index.ts` (or by tests) and passed down. */
import type { Principal } from '@runbook/contracts';
import type { Logger } from '@runbook/rpc';
import type { Kysely } from 'kysely';
import type { Database } from './db/database.js';

export interface CatalogDeps {
  db: Kysely<Database>;
  /**
   * Resolves a bearer credential to its principal (identity, cached; tests use a fake).
   * @throws {AppError} 401 for an invalid credential, 503 when identity is unreachable.
   */
  authenticate: (credential: string) => Promise<Principal>;
  logger: Logger;
  /** Current time, epoch milliseconds. */
  now: () => number;
}
