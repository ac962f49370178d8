/**
 * Test dependencies for catalog: a fresh migrated database per dialect, a fixed clock, a query
 * counter, and a fake authenticator mapping credentials to principals (no identity process needed).
 */
import { type AppError, type Principal, type Role, type RoleAssignment, unauthorized } from '@runbook/contracts';
import type { Dialect } from '@runbook/db';
import { createTestDatabase } from '@runbook/db/testing';
import { createLogger } from '@runbook/rpc';
import { TRPCError } from '@trpc/server';
import { expect } from 'vitest';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import type { CatalogDeps } from './deps.js';
import { catalogRouter } from './router.js';
import { createCallerFactory, createContextInner } from './trpc.js';

const createCaller = createCallerFactory(catalogRouter);
export type CatalogCaller = ReturnType<typeof createCaller>;

export interface CatalogTestKit {
  deps: CatalogDeps;
  clock: { now: number };
  /** Database queries run so far; reset `count` before measuring. */
  queries: { count: number };
  /** A caller presenting `credential`. */
  caller(credential: string | null): CatalogCaller;
  /** Registers a user holding `roles` (plain names are global) and returns a credential for them. */
  userWith(roles: Array<Role | RoleAssignment>): string;
  /** A caller for a user holding `roles` (plain names are global). */
  as(roles: Array<Role | RoleAssignment>): CatalogCaller;
  destroy(): Promise<void>;
}

export async function createCatalogTestKit(dialect: Dialect): Promise<CatalogTestKit> {
  const queries = { count: 0 };
  const testDb = await createTestDatabase<Database>(dialect, migrations, { onQuery: () => queries.count++ });
  const clock = { now: Date.UTC(2026, 10, 21, 12, 0, 0) };
  const principals = new Map<string, Principal>();
  const deps: CatalogDeps = {
    db: testDb.db,
    authenticate: async (credential) => {
      const principal = principals.get(credential);
      if (!principal) throw unauthorized('The bearer token is not valid.');
      return principal;
    },
    logger: createLogger('catalog-test', 'silent'),
    now: () => clock.now,
  };
  const caller = (credential: string | null) => createCaller(createContextInner(deps, credential));
  const userWith = (roles: Array<Role | RoleAssignment>) => {
    const n = principals.size + 1;
    const credential = `test-token-${n}`;
    principals.set(credential, {
      kind: 'user',
      user_id: String(n),
      token_id: String(n),
      roles: roles.map((r) => (typeof r === 'string' ? { role: r, workspace_id: null } : r)),
    });
    return credential;
  };
  return {
    deps,
    clock,
    queries,
    caller,
    userWith,
    as: (roles) => caller(userWith(roles)),
    destroy: () => testDb.destroy(),
  };
}

/** The tRPC code a call fails with, or `'ok'`. */
export async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    return (e as TRPCError).code;
  }
}

/** The AppError a call fails with (fails the test when it succeeds). */
export async function appErrorOf(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    return (e as TRPCError).cause as AppError;
  }
  throw new Error('expected the call to fail');
}
