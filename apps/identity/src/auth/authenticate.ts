/**
 * `authenticate(credential)`: the single authority that turns a bearer credential into a
 * principal. Results are cached in-process for `authCacheTtlMs` (default 1 s) and dropped at once
 * when this service revokes a token or archives a user; callers in other services cache for the
 * same TTL, so a revocation takes effect everywhere within that bound.
 */
import { type Principal, type RoleAssignment, unauthorized } from '@runbook/contracts';
import type { IdentityDeps } from '../deps.js';
import { findServiceCredential, findTokenForAuthentication, touchUserAppToken } from '../tokens/tokens.repository.js';
import { findRoleAssignments } from '../users/users.repository.js';
import { credentialKind, hashCredential } from './credential-format.js';

const CACHE_KEY = (hash: string) => `auth:${hash}`;

/**
 * @returns the principal of a valid credential.
 * @throws {AppError} 401 `unauthorized` for a malformed, unknown, expired or revoked credential or an archived user.
 */
export async function authenticate(deps: IdentityDeps, credential: string): Promise<Principal> {
  const kind = credentialKind(credential);
  if (!kind) throw unauthorized('The bearer token is not valid.');
  const hash = hashCredential(credential);
  const cached = await deps.authCache.get(CACHE_KEY(hash));
  if (cached) return JSON.parse(cached) as Principal;

  let principal: Principal;
  let ttlMs = deps.config.authCacheTtlMs;
  if (kind === 'service') {
    const row = await findServiceCredential(deps.db, hash);
    if (!row || row.revoked_at !== null) throw unauthorized('The service credential is not valid.');
    principal = { kind: 'service', service: row.service };
  } else {
    const row = await findTokenForAuthentication(deps.db, hash);
    const now = deps.now();
    if (!row) throw unauthorized('The bearer token is not valid.');
    if (row.revoked_at !== null) throw unauthorized('The bearer token has been revoked.');
    if (row.expires_at !== null && Number(row.expires_at) <= now) throw unauthorized('The bearer token has expired.');
    if (row.archived) throw unauthorized('The user of this token is archived.');
    // Never serve a cached principal past the token's expiry.
    if (row.expires_at !== null) ttlMs = Math.min(ttlMs, Number(row.expires_at) - now);
    const roles = await findRoleAssignments(deps.db, [row.user_id]);
    principal = {
      kind: 'user',
      user_id: String(row.user_id),
      token_id: String(row.id),
      roles: roles.map(
        (r): RoleAssignment => ({
          role: r.role as RoleAssignment['role'],
          workspace_id: Number(r.workspace_id) === 0 ? null : String(r.workspace_id),
        }),
      ),
    };
    if (row.last_used_at === null || now - Number(row.last_used_at) >= deps.config.lastUsedWriteIntervalMs) {
      await touchUserAppToken(deps.db, row.id, now);
    }
  }
  if (ttlMs > 0) await deps.authCache.set(CACHE_KEY(hash), JSON.stringify(principal), ttlMs);
  return principal;
}

/** Drops cached authentications of these token hashes (on revocation, archival and role changes). */
export async function forgetAuthentications(deps: IdentityDeps, tokenHashes: string[]): Promise<void> {
  await deps.authCache.del(tokenHashes.map(CACHE_KEY));
}
