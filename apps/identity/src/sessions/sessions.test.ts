import { testDialects } from '@runbook/db/testing';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKind, generateCredential, hashCredential } from '../auth/credential-format.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { createIdentityTestKit, type IdentityTestKit } from '../test-support.js';

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    const cause = (e as TRPCError).cause as { status?: number; code?: string } | undefined;
    return { status: cause?.status, code: cause?.code };
  }
  return { status: 200, code: 'ok' };
};

describe('passwords and session credentials', () => {
  it('hashes with Argon2id and verifies', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(hash, 'wrong horse battery')).toBe(false);
    expect(await verifyPassword(null, 'anything')).toBe(false);
  });

  it('recognises rbw_ session credentials', () => {
    const session = generateCredential('rbw_');
    expect(session).toMatch(/^rbw_[0-9a-f]{72}$/);
    expect(credentialKind(session)).toBe('session');
  });
});

describe.each(await testDialects())('web sign-in on %s', (dialect) => {
  let kit: IdentityTestKit;
  let admin: { userId: string; token: string };
  let user: { userId: string; token: string };
  const email = `dev-${Date.now()}@example.com`;
  const password = 'a long enough password';

  beforeAll(async () => {
    kit = await createIdentityTestKit(dialect);
    kit.deps.config.authCacheTtlMs = 0;
    admin = await kit.userWithToken(['developer', 'global_user_admin']);
    user = await kit.userWithToken(['developer'], email);
  });
  afterAll(() => kit.destroy());

  it('lets an admin set a password (too short refused) and the user sign in with it', async () => {
    expect(await errorOf(kit.caller(admin.token).users.setPassword({ id: user.userId, password: 'short' }))).toEqual({
      status: 422,
      code: 'password_too_short',
    });
    await kit.caller(admin.token).users.setPassword({ id: user.userId, password });
    const row = await kit.deps.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', Number(user.userId))
      .executeTakeFirst();
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);
    expect(row?.password_hash).not.toContain(password);

    const signedIn = await kit.caller(null).sessions.signIn({ email, password, ip: '10.0.0.1' });
    expect(signedIn.session).toMatch(/^rbw_/);
    expect(signedIn.user.id).toBe(user.userId);
    expect(Date.parse(signedIn.expires_at) - kit.clock.now).toBe(12 * 3_600_000);
    const sessions = await kit.deps.db.selectFrom('web_sessions').selectAll().execute();
    expect(JSON.stringify(sessions)).not.toContain(signedIn.session);
    expect(sessions.map((s) => s.session_hash)).toContain(hashCredential(signedIn.session));

    // The session authenticates as the user; sign-out revokes it.
    expect((await kit.caller(signedIn.session).users.me()).id).toBe(user.userId);
    await kit.caller(signedIn.session).sessions.signOut();
    expect(await errorOf(kit.caller(signedIn.session).users.me())).toEqual({ status: 401, code: 'unauthorized' });
  });

  it('expires sessions', async () => {
    const { session } = await kit.caller(null).sessions.signIn({ email, password, ip: '10.0.0.2' });
    kit.clock.now += 12 * 3_600_000;
    expect(await errorOf(kit.caller(session).users.me())).toEqual({ status: 401, code: 'unauthorized' });
  });

  it('rejects wrong passwords with 401, audits them, and answers 429 after 5 failures per email and IP', async () => {
    for (let i = 0; i < 5; i++) {
      expect(
        await errorOf(kit.caller(null).sessions.signIn({ email, password: 'wrong password!!', ip: '10.0.0.3' })),
      ).toEqual({ status: 401, code: 'invalid_credentials' });
    }
    expect(await errorOf(kit.caller(null).sessions.signIn({ email, password, ip: '10.0.0.3' }))).toEqual({
      status: 429,
      code: 'rate_limited',
    });
    // Another IP is not affected; an unknown email gives the same 401.
    await kit.caller(null).sessions.signIn({ email, password, ip: '10.0.0.4' });
    expect(
      await errorOf(kit.caller(null).sessions.signIn({ email: 'nobody@example.com', password, ip: '10.0.0.4' })),
    ).toEqual({ status: 401, code: 'invalid_credentials' });
    const logs = await kit.deps.db
      .selectFrom('action_logs')
      .selectAll()
      .where('event', '=', 'sign_in_failed')
      .execute();
    expect(logs.length).toBe(6);
    expect(JSON.stringify(logs)).not.toContain('wrong password!!');
    expect(JSON.parse(logs[0]?.details ?? '{}')).toMatchObject({ email, ip: '10.0.0.3', reason: 'wrong_password' });
  });

  it('checks at most 5 passwords of a parallel burst of wrong guesses; the rest is 429 at once', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        errorOf(kit.caller(null).sessions.signIn({ email, password: `wrong guess number ${i}`, ip: '10.0.0.9' })),
      ),
    );
    expect(outcomes.filter((o) => o.status === 401)).toHaveLength(5);
    expect(outcomes.filter((o) => o.status === 429)).toHaveLength(7);
  });

  it("lets users change their own password only with the current one, and not other users'", async () => {
    const self = kit.caller(user.token).users;
    expect(await errorOf(self.setPassword({ id: user.userId, password: 'another long password' }))).toEqual({
      status: 422,
      code: 'current_password_incorrect',
    });
    await self.setPassword({ id: user.userId, password: 'another long password', current_password: password });
    expect(await errorOf(self.setPassword({ id: admin.userId, password: 'another long password' }))).toEqual({
      status: 403,
      code: 'forbidden',
    });
    await kit.caller(null).sessions.signIn({ email, password: 'another long password', ip: '10.0.0.5' });
  });
});
