/**
 * `authenticate(credential)`: the single authority that turns a bearer credential into a
 * principal. Results are cached for `authCacheTtlMs` (default 1 s; in Redis when configured) and
 * dropped at once when this service revokes a token, archives a user or changes roles; callers in
 * other services cache for the same TTL, so a revocation takes effect everywhere within that bound.
 * Repeated failures of one credential are recorded in the audit trail (see {@link failure}).
 * Web UI sessions (`rbw_…`, see sessions.service.ts) authenticate as their user.
 */
import { type Principal, type RoleAssignment, unauthorized } from '@runbook/contracts';
import { recordAction } from '../action-logs/action-logs.service.js';
import type { IdentityDeps } from '../deps.js';
import { findSessionForAuthentication } from '../sessions/sessions.repository.js';
import { findServiceCredential, findTokenForAuthentication, touchUserAppToken } from '../tokens/tokens.repository.js';
import { findRoleAssignments } from '../users/users.repository.js';
import { credentialKind, hashCredential } from './credential-format.js';

const CACHE_KEY = (hash: string) => `auth:${hash}`;

async function rolesOf(deps: IdentityDeps, userId: number): Promise<RoleAssignment[]> {
  const roles = await findRoleAssignments(deps.db, [userId]);
  return roles.map(
    (r): RoleAssignment => ({
      role: r.role as RoleAssignment['role'],
      workspace_id: Number(r.workspace_id) === 0 ? null : String(r.workspace_id),
    }),
  );
}

type FailureReason = 'unknown' | 'revoked' | 'expired' | 'user_archived';

const failureDetail: Record<FailureReason, string> = {
  unknown: 'The bearer token is not valid.',
  revoked: 'The bearer token has been revoked.',
  expired: 'The bearer token has expired.',
  user_archived: 'The user of this token is archived.',
};

/**
 * Counts a failure of a well-formed credential and, when it reaches the threshold within the window,
 * records one `authentication_failures` action log (never the credential: a prefix of its SHA-256,
 * the token id and its owner when known).
 * @returns the 401 to throw.
 */
async function failure(
  deps: IdentityDeps,
  hash: string,
  reason: FailureReason,
  token: { id: number; user_id: number } | null,
  now: number,
) {
  const failures = await deps.authFailures.hit(hash);
  if (failures !== null) {
    try {
      await recordAction(
        deps.db,
        {
          event: 'authentication_failures',
          actor: { actor_id: null, actor_service: null },
          user_id: token?.user_id ?? null,
          ...(token ? { subject: { type: 'user_app_token' as const, id: token.id } } : {}),
          details: {
            reason,
            failures,
            window_seconds: Math.round(deps.config.authFailureWindowMs / 1000),
            credential_sha256_prefix: hash.slice(0, 16),
          },
        },
        now,
      );
    } catch (error) {
      deps.logger.error({ err: error }, 'could not record repeated authentication failures');
    }
  }
  return unauthorized(failureDetail[reason]);
}

/**
 * @returns the principal of a valid credential. A user token is valid when it is known, not revoked,
 * not past `expires_at` nor older than the instance's maximum lifetime, and its user is not archived.
 * @throws {AppError} 401 `unauthorized` for a malformed, unknown, expired or revoked credential or an archived user.
 */
export async function authenticate(deps: IdentityDeps, credential: string): Promise<Principal> {
  const kind = credentialKind(credential);
  // Malformed credentials (bad prefix or checksum) are not counted: they cost no lookup and are typos, not tokens.
  if (!kind) throw unauthorized('The bearer token is not valid.');
  const hash = hashCredential(credential);
  const cached = await deps.authCache.get(CACHE_KEY(hash));
  if (cached) return JSON.parse(cached) as Principal;

  let principal: Principal;
  let ttlMs = deps.config.authCacheTtlMs;
  const now = deps.now();
  if (kind === 'service') {
    const row = await findServiceCredential(deps.db, hash);
    if (!row) throw await failure(deps, hash, 'unknown', null, now);
    if (row.revoked_at !== null) throw await failure(deps, hash, 'revoked', null, now);
    principal = { kind: 'service', service: row.service };
  } else if (kind === 'session') {
    // A web UI session (`rbw_…`): the user's principal, like a token of theirs.
    const row = await findSessionForAuthentication(deps.db, hash);
    if (!row) throw unauthorized('The session is not valid; sign in again.');
    if (row.revoked_at !== null) throw unauthorized('The session has ended; sign in again.');
    const expiresAt = Number(row.expires_at);
    if (expiresAt <= now) throw unauthorized('The session has expired; sign in again.');
    if (row.archived) throw unauthorized('The user of this session is archived.');
    ttlMs = Math.min(ttlMs, expiresAt - now);
    principal = {
      kind: 'user',
      user_id: String(row.user_id),
      token_id: `session:${row.id}`,
      roles: await rolesOf(deps, row.user_id),
    };
  } else {
    const row = await findTokenForAuthentication(deps.db, hash);
    if (!row) throw await failure(deps, hash, 'unknown', null, now);
    const token = { id: row.id, user_id: row.user_id };
    if (row.revoked_at !== null) throw await failure(deps, hash, 'revoked', token, now);
    const max = deps.config.tokenMaxLifetimeMs;
    const expiresAt = Math.min(
      row.expires_at === null ? Number.POSITIVE_INFINITY : Number(row.expires_at),
      max === null ? Number.POSITIVE_INFINITY : Number(row.created_at) + max,
    );
    if (expiresAt <= now) throw await failure(deps, hash, 'expired', token, now);
    if (row.archived) throw await failure(deps, hash, 'user_archived', token, now);
    // Never serve a cached principal past the token's expiry.
    ttlMs = Math.min(ttlMs, expiresAt - now);
    principal = {
      kind: 'user',
      user_id: String(row.user_id),
      token_id: String(row.id),
      roles: await rolesOf(deps, row.user_id),
    };
    // Written at most once per interval per token, and only on a cache miss: not a write per request.
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
