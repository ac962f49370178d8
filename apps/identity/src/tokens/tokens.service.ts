/**
 * User app tokens (DESIGN §4): random, prefixed and check-summed, shown exactly once at creation;
 * only the SHA-256 is stored. Each has a required label, an optional expiry, `last_used_at`, and can
 * be revoked; revocation drops cached authentications at once.
 */
import { conflict, notFound, type UserAppTokenDto, unprocessable } from '@runbook/contracts';
import { isoOf, msToIso } from '@runbook/db';
import type { Actor } from '../access.js';
import { recordAction } from '../action-logs/action-logs.service.js';
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
 * Creates a token; audited as `user_app_token_created`. The plaintext is returned here and never
 * again. Without `expires_at` the token never expires, unless the instance has a maximum lifetime
 * (then it expires after that).
 * @param input.expires_at ISO-8601 time, in the future and within the instance's maximum lifetime.
 * @throws {AppError} 404 unknown user; 409 `user_archived`; 422 `invalid_expiry` for a past expiry or one beyond the maximum lifetime.
 */
export async function createToken(
  deps: IdentityDeps,
  actor: Actor,
  userId: number,
  input: { label: string; expires_at?: string | undefined },
): Promise<{ token: UserAppTokenDto; plaintext: string }> {
  const user = await getUser(deps, userId);
  if (user.archived) throw conflict('user_archived', `User ${userId} is archived; archived users cannot get tokens.`);
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
  const id = await deps.db.transaction().execute(async (trx) => {
    const tokenId = await repo.insertUserAppToken(trx, {
      user_id: userId,
      label: input.label,
      token_hash: hashCredential(plaintext),
      token_prefix: displayPrefix(plaintext),
      created_at: now,
      expires_at: expiresAt,
      last_used_at: null,
      revoked_at: null,
    });
    await recordAction(
      trx,
      {
        event: 'user_app_token_created',
        actor,
        user_id: userId,
        subject: { type: 'user_app_token', id: tokenId },
        details: { label: input.label, expires_at: msToIso(expiresAt) },
      },
      now,
    );
    return tokenId;
  });
  const row = await repo.findUserAppToken(deps.db, userId, id);
  if (!row) throw new Error('token vanished after insert');
  return { token: toTokenDto(row), plaintext };
}

/**
 * Revokes a token (idempotent); it stops working at once here and within the auth cache TTL (1 s)
 * elsewhere. Audited as `user_app_token_revoked` when it was active.
 * @throws {AppError} 404 when user `userId` has no token `tokenId`.
 */
export async function revokeToken(deps: IdentityDeps, actor: Actor, userId: number, tokenId: number): Promise<void> {
  const row = await repo.findUserAppToken(deps.db, userId, tokenId);
  if (!row) throw notFound('user_app_token', String(tokenId));
  if (row.revoked_at !== null) return;
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await repo.revokeUserAppToken(trx, tokenId, now);
    await recordAction(
      trx,
      {
        event: 'user_app_token_revoked',
        actor,
        user_id: userId,
        subject: { type: 'user_app_token', id: tokenId },
        details: { label: row.label },
      },
      now,
    );
  });
  await forgetAuthentications(deps, [row.token_hash]);
}

/** Issues a credential for service `service` (e.g. `catalog`). The plaintext is returned once. */
export async function issueServiceCredential(deps: IdentityDeps, service: string): Promise<string> {
  const plaintext = generateCredential(SERVICE_CREDENTIAL_PREFIX);
  await repo.insertServiceCredential(deps.db, service, hashCredential(plaintext), deps.now());
  return plaintext;
}
