/**
 * First-run setup for the embedded default: an admin user holding every role with a user app
 * token and a web sign-in password (`<DATA_DIR>/admin-password`), and credentials for the other services, written under the data directory (mode 0600).
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { allRoles } from '@runbook/contracts';
import { systemActor } from './access.js';
import { generatePassword } from './auth/passwords.js';
import type { IdentityDeps } from './deps.js';
import { setPassword } from './sessions/sessions.service.js';
import { createToken, issueServiceCredential } from './tokens/tokens.service.js';
import { createUser } from './users/users.service.js';

/**
 * Creates the admin when the database has no user yet, with a token (to `tokenFile`) and a random
 * password (to `passwordFile`), both mode 0600.
 * @returns the admin's token plaintext on first run, `null` when users already exist.
 */
export async function bootstrapAdmin(
  deps: IdentityDeps,
  email: string,
  tokenFile: string,
  passwordFile: string,
): Promise<string | null> {
  const any = await deps.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (any) return null;
  const admin = await createUser(deps, systemActor, {
    first_name: 'Platform',
    last_name: 'Admin',
    email,
    roles: allRoles.map((role) => ({ role, workspace_id: null })),
  });
  const { plaintext } = await createToken(deps, systemActor, Number(admin.id), { label: 'bootstrap admin token' });
  const password = generatePassword();
  await setPassword(deps, systemActor, Number(admin.id), { password }, false);
  await writeFile(tokenFile, `${plaintext}\n`, { mode: 0o600 });
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  return plaintext;
}

/** Issues a credential for each service whose file `<dir>/<service>` does not exist yet. */
export async function bootstrapServiceCredentials(deps: IdentityDeps, services: string[], dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const service of services) {
    const file = join(dir, service);
    if (existsSync(file)) continue;
    const credential = await issueServiceCredential(deps, service);
    await writeFile(file, `${credential}\n`, { mode: 0o600 });
  }
}
