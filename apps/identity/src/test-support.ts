/** Test dependencies for identity: a fresh migrated database per dialect and a fixed clock. */
import { createMemoryCache } from '@runbook/cache';
import { allRoles, type Role } from '@runbook/contracts';
import type { Dialect } from '@runbook/db';
import { createTestDatabase } from '@runbook/db/testing';
import { createLogger } from '@runbook/rpc';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { defaultIdentityConfig, type IdentityDeps } from './deps.js';
import { identityRouter } from './router.js';
import { createToken } from './tokens/tokens.service.js';
import { createCallerFactory, createContextInner } from './trpc.js';
import { createUser } from './users/users.service.js';

export interface IdentityTestKit {
  deps: IdentityDeps;
  clock: { now: number };
  /** A caller presenting `credential`. */
  caller(credential: string | null): ReturnType<ReturnType<typeof createCallerFactory<typeof identityRouter>>>;
  /** Creates a user with `roles` (global) and returns a token for them. */
  userWithToken(roles: Role[], email?: string): Promise<{ userId: string; token: string }>;
  destroy(): Promise<void>;
}

let counter = 0;

export async function createIdentityTestKit(dialect: Dialect): Promise<IdentityTestKit> {
  const testDb = await createTestDatabase<Database>(dialect, migrations);
  const clock = { now: Date.UTC(2026, 10, 21, 12, 0, 0) };
  const deps: IdentityDeps = {
    db: testDb.db,
    authCache: createMemoryCache({ prefix: 't:' }),
    logger: createLogger('identity-test', 'silent'),
    config: { ...defaultIdentityConfig },
    now: () => clock.now,
  };
  const createCaller = createCallerFactory(identityRouter);
  return {
    deps,
    clock,
    caller: (credential) => createCaller(createContextInner(deps, credential)),
    async userWithToken(roles, email) {
      counter++;
      const user = await createUser(deps, {
        first_name: 'Test',
        last_name: `User${counter}`,
        email: email ?? `user${counter}-${Date.now()}@example.com`,
        roles: roles.map((role) => ({ role, workspace_id: null })),
      });
      const { plaintext } = await createToken(deps, Number(user.id), { label: 'test' });
      return { userId: user.id, token: plaintext };
    },
    destroy: () => testDb.destroy(),
  };
}

export { allRoles };
