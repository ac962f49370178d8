/**
 * Web UI sessions and passwords. Signing in with email + password issues a session credential
 * (`rbw_…`, same format family as tokens; only its SHA-256 is stored) valid for
 * `config.webSessionTtlMs` (12 h by default); `authenticate()` accepts it as the user's principal.
 * Sign-out revokes it at once. Failed sign-ins are limited per email + client IP (429 with
 * `Retry-After` once `deps.signInLimiter` says so) and every failure is audited as `sign_in_failed`
 * (never the password).
 */
import { AppError, type UserDto, unprocessable } from '@runbook/contracts';
import { msToIso } from '@runbook/db';
import type { Actor } from '../access.js';
import { recordAction } from '../action-logs/action-logs.service.js';
import { forgetAuthentications } from '../auth/authenticate.js';
import { credentialKind, generateCredential, hashCredential, WEB_SESSION_PREFIX } from '../auth/credential-format.js';
import { hashPassword, PASSWORD_MIN_LENGTH, verifyPassword } from '../auth/passwords.js';
import type { IdentityDeps } from '../deps.js';
import * as userRepo from '../users/users.repository.js';
import { getUser } from '../users/users.service.js';
import * as repo from './sessions.repository.js';

/** A signed-in session: the credential (returned this once) and when it expires. */
export interface SignInResult {
  session: string;
  expires_at: string;
  user: UserDto;
}

const INVALID = 'The email or password is incorrect.';

/**
 * Signs a user in.
 * @param input.ip the client's IP as seen by the gateway (keys the rate limit, recorded on failures).
 * @throws {AppError} 429 `rate_limited` (with `retryAfter`) after too many failures for this email and IP;
 *   401 `invalid_credentials` for an unknown email, a wrong password, no password set or an archived user.
 */
export async function signIn(
  deps: IdentityDeps,
  input: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const email = input.email.trim();
  const key = `${email.toLowerCase()}|${input.ip}`;
  const now = deps.now();
  // Counted before the password is checked, so parallel guesses cannot outrun the limit.
  const { attempts, retryAfter: wait } = await deps.signInLimiter.attempt(key);
  if (wait !== null) {
    throw new AppError(429, 'rate_limited', `Too many failed sign-ins; try again in ${wait} s.`, {
      retryAfter: wait,
      meta: { retry_after_seconds: wait },
    });
  }
  const user = await userRepo.findUserByEmail(deps.db, email);
  const ok = await verifyPassword(user?.password_hash ?? null, input.password);
  if (!user || !ok || user.archived) {
    await recordAction(
      deps.db,
      {
        event: 'sign_in_failed',
        actor: { actor_id: null, actor_service: null },
        user_id: user?.id ?? null,
        ...(user ? { subject: { type: 'user' as const, id: user.id } } : {}),
        details: {
          email,
          ip: input.ip,
          reason: !user ? 'unknown_email' : user.archived ? 'user_archived' : 'wrong_password',
          failures_in_window: attempts,
        },
      },
      now,
    );
    throw new AppError(401, 'invalid_credentials', INVALID);
  }
  await deps.signInLimiter.reset(key);
  const session = generateCredential(WEB_SESSION_PREFIX);
  const expiresAt = now + deps.config.webSessionTtlMs;
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertWebSession(trx, {
      user_id: user.id,
      session_hash: hashCredential(session),
      created_at: now,
      expires_at: expiresAt,
    });
    await recordAction(
      trx,
      {
        event: 'signed_in',
        actor: { actor_id: user.id, actor_service: null },
        user_id: user.id,
        subject: { type: 'user', id: user.id },
        details: { ip: input.ip, expires_at: msToIso(expiresAt) },
      },
      now,
    );
  });
  return { session, expires_at: msToIso(expiresAt) ?? '', user: await getUser(deps, user.id) };
}

/** Revokes the session `credential` (idempotent; anything but a session credential is ignored). */
export async function signOut(deps: IdentityDeps, credential: string | null): Promise<void> {
  if (!credential || credentialKind(credential) !== 'session') return;
  const hash = hashCredential(credential);
  const row = await repo.findSessionForAuthentication(deps.db, hash);
  if (!row || row.revoked_at !== null) return;
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await repo.revokeWebSession(trx, hash, now);
    await recordAction(
      trx,
      {
        event: 'signed_out',
        actor: { actor_id: row.user_id, actor_service: null },
        user_id: row.user_id,
        subject: { type: 'user', id: row.user_id },
      },
      now,
    );
  });
  await forgetAuthentications(deps, [hash]);
}

/**
 * Sets `userId`'s password. When users change their own password they must give the current one
 * (if they have one); a `global_user_admin` setting another user's password need not (the caller
 * checks who may call this). Every other web session of the user is revoked (the caller's own, when
 * `keepCredential` is one, stays signed in).
 * @throws {AppError} 404 unknown user; 422 `password_too_short` or `current_password_incorrect`.
 */
export async function setPassword(
  deps: IdentityDeps,
  actor: Actor,
  userId: number,
  input: { password: string; current_password?: string | undefined },
  requireCurrent: boolean,
  keepCredential: string | null = null,
): Promise<void> {
  await getUser(deps, userId);
  if (input.password.length < PASSWORD_MIN_LENGTH) {
    throw unprocessable(
      'password_too_short',
      `A password needs at least ${PASSWORD_MIN_LENGTH} characters.`,
      '/password',
    );
  }
  const row = await userRepo.findUserById(deps.db, userId);
  if (requireCurrent && row?.password_hash) {
    if (!input.current_password || !(await verifyPassword(row.password_hash, input.current_password))) {
      throw unprocessable('current_password_incorrect', 'The current password is incorrect.', '/current_password');
    }
  }
  const passwordHash = await hashPassword(input.password);
  const now = deps.now();
  const revoked = await deps.db.transaction().execute(async (trx) => {
    await userRepo.updateUser(trx, userId, { password_hash: passwordHash, updated_at: now });
    await recordAction(
      trx,
      { event: 'password_changed', actor, user_id: userId, subject: { type: 'user', id: userId } },
      now,
    );
    // Other browsers signed in as this user must sign in again with the new password.
    return repo.revokeUserSessions(trx, userId, now, keepCredential ? hashCredential(keepCredential) : null);
  });
  await forgetAuthentications(deps, revoked);
}
