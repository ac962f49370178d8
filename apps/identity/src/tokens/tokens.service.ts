/**
 * User app tokens (DESIGN §4): random, prefixed and check-summed, shown exactly once at creation;
 * only the SHA-256 is stored. Each has a required label, an optional expiry, `last_used_at`, and can
 * be revoked; revocation drops cached authentications at once.
 */
import { notFound, type UserAppTokenDto, unprocessable } from '@runbook/contracts';
import { isoOf, msToIso } from '@runbook/db';
import { forgetAuthentications } from '../auth/authenticate.js';
import {
  displayPrefix,
  generateCredential,
  hashCredential,
  SERVICE_CREDENTIAL_PREFIX,
  USER_TOKEN_PREFIX,
} from '../auth/credential-format.js';
import type { UserAppTokenRow } from '../db/database.js';
import type { IdentityDeps } from '../deps.js';
import { getUser } from '../users/users.service.js';
import * as repo from './tokens.repository.js';

function toTokenDto(row: UserAppTokenRow): UserAppTokenDto {
  return {
    id: String(row.id),
    user_id: String(row.user_id),
    label: row.label,
    token_prefix: row.token_prefix,
    created_at: isoOf(row.created_at),
    expires_at: msToIso(row.expires_at),
    last_used_at: msToIso(row.last_used_at),
    revoked_at: msToIso(row.revoked_at),
  };
}

/** A user's tokens, newest first. @throws {AppError} 404 for an unknown user. */
export async function listTokens(deps: IdentityDeps, userId: number): Promise<UserAppTokenDto[]> {
  await getUser(deps, userId);
  return (await repo.listUserAppTokens(deps.db, userId)).map(toTokenDto);
}

/**
 * Creates a token. The plaintext is returned here and never again.
 * @param expiresAt ISO-8601 time, in the future and within the instance's maximum lifetime.
 * @throws {AppError} 404 unknown user; 422 `invalid_expiry` for a past expiry or one beyond the maximum lifetime.
 */
export async function createToken(
  deps: IdentityDeps,
  userId: number,
  input: { label: string; expires_at?: string | undefined },
): Promise<{ token: UserAppTokenDto; plaintext: string }> {
  await getUser(deps, userId);
  const now = deps.now();
  const max = deps.config.tokenMaxLifetimeMs;
  let expiresAt: number | null = input.expires_at ? Date.parse(input.expires_at) : null;
  if (expiresAt !== null && expiresAt <= now) {
    throw unprocessable('invalid_expiry', 'expires_at must be in the future.', '/data/attributes/expires_at');
  }
  if (max !== null) {
    if (expiresAt !== null && expiresAt - now > max) {
      throw unprocessable(
        'invalid_expiry',
        `expires_at may be at most ${Math.floor(max / 86_400_000)} days ahead on this instance.`,
        '/data/attributes/expires_at',
      );
    }
    expiresAt ??= now + max;
  }
  const plaintext = generateCredential(USER_TOKEN_PREFIX);
  const id = await repo.insertUserAppToken(deps.db, {
    user_id: userId,
    label: input.label,
    token_hash: hashCredential(plaintext),
    token_prefix: displayPrefix(plaintext),
    created_at: now,
    expires_at: expiresAt,
    last_used_at: null,
    revoked_at: null,
  });
  const row = await repo.findUserAppToken(deps.db, userId, id);
  if (!row) throw new Error('token vanished after insert');
  return { token: toTokenDto(row), plaintext };
}

/** Revokes a token; it stops working at once here and within the auth cache TTL elsewhere. @throws {AppError} 404. */
export async function revokeToken(deps: IdentityDeps, userId: number, tokenId: number): Promise<void> {
  const row = await repo.findUserAppToken(deps.db, userId, tokenId);
  if (!row) throw notFound('user_app_token', String(tokenId));
  await repo.revokeUserAppToken(deps.db, tokenId, deps.now());
  await forgetAuthentications(deps, [row.token_hash]);
}

/** Issues a credential for service `service` (e.g. `catalog`). The plaintext is returned once. */
export async function issueServiceCredential(deps: IdentityDeps, service: string): Promise<string> {
  const plaintext = generateCredential(SERVICE_CREDENTIAL_PREFIX);
  await repo.insertServiceCredential(deps.db, service, hashCredential(plaintext), deps.now());
  return plaintext;
}
