/** Test dependencies for identity: a fresh migrated database per dialect and a fixed clock. */
import { createMemoryCache } from '@runbook/cache';
import { allRoles, type RoleAssignment } from '@runbook/contracts';
import type { Dialect } from '@runbook/db';
import { createTestDatabase } from '@runbook/db/testing';
import { createLogger } from '@runbook/rpc';
import { systemActor } from './access.js';
import { createFailureCounter } from './auth/failure-counter.js';
import { createSignInLimiter } from './auth/sign-in-limiter.js';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { defaultIdentityConfig, type IdentityDeps } from './deps.js';
import { identityRouter } from './router.js';
import { createToken } from './tokens/tokens.service.js';
import { createCallerFactory, createContextInner } from './trpc.js';
import { createUser } from './users/users.service.js';

const createCaller = createCallerFactory(identityRouter);
/** A caller of identity's router. */
export type IdentityCaller = ReturnType<typeof createCaller>;

export interface IdentityTestKit {
  deps: IdentityDeps;
  clock: { now: number };
  /** A caller presenting `credential`. */
  caller(credential: string | null): IdentityCaller;
  /**
   * Creates a user holding `roles` (role names are global; objects may name a workspace) and returns
   * a token for them.
   */
  userWithToken(
    roles: Array<RoleAssignment['role'] | RoleAssignment>,
    email?: string,
  ): Promise<{ userId: string; token: string }>;
  destroy(): Promise<void>;
}

let counter = 0;

export async function createIdentityTestKit(dialect: Dialect): Promise<IdentityTestKit> {
  const testDb = await createTestDatabase<Database>(dialect, migrations);
  const clock = { now: Date.UTC(2026, 10, 21, 12, 0, 0) };
  const config = { ...defaultIdentityConfig };
  const deps: IdentityDeps = {
    db: testDb.db,
    authCache: createMemoryCache({ prefix: 't:' }),
    authFailures: createFailureCounter({
      threshold: config.authFailureThreshold,
      windowSeconds: config.authFailureWindowMs / 1000,
    }),
    signInLimiter: createSignInLimiter({ max: 5, windowSeconds: 60 }),
    logger: createLogger('identity-test', 'silent'),
    config,
    now: () => clock.now,
  };
  return {
    deps,
    clock,
    caller: (credential) => createCaller(createContextInner(deps, credential)),
    async userWithToken(roles, email) {
      counter++;
      const user = await createUser(deps, systemActor, {
        first_name: 'Test',
        last_name: `User${counter}`,
        email: email ?? `user${counter}-${Date.now()}@example.com`,
        roles: roles.map((r) => (typeof r === 'string' ? { role: r, workspace_id: null } : r)),
      });
      const { plaintext } = await createToken(deps, systemActor, Number(user.id), { label: 'test' });
      return { userId: user.id, token: plaintext };
    },
    destroy: () => testDb.destroy(),
  };
}

export { allRoles };
