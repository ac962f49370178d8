import { testDialects } from '@runbook/db/testing';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKind, generateCredential } from '../auth/credential-format.js';
import { createIdentityTestKit, type IdentityTestKit } from '../test-support.js';

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    return (e as TRPCError).code;
  }
};

describe('credential format', () => {
  it('generates prefixed, check-summed credentials with 256 bits of randomness', () => {
    const a = generateCredential('rbt_');
    const b = generateCredential('rbt_');
    expect(a).toMatch(/^rbt_[0-9a-f]{72}$/);
    expect(a).not.toBe(b);
    expect(credentialKind(a)).toBe('user');
    expect(credentialKind(generateCredential('rbs_'))).toBe('service');
  });

  it('rejects a credential whose checksum does not match', () => {
    const a = generateCredential('rbt_');
    const flipped = a.slice(0, 10) + (a[10] === 'a' ? 'b' : 'a') + a.slice(11);
    expect(credentialKind(flipped)).toBeNull();
    expect(credentialKind('rbt_short')).toBeNull();
  });
});

describe.each(await testDialects())('user app tokens on %s', (dialect) => {
  let kit: IdentityTestKit;
  beforeAll(async () => {
    kit = await createIdentityTestKit(dialect);
  });
  afterAll(() => kit.destroy());

  it('shows the plaintext once, stores only a hash, and authenticates with it', async () => {
    const { userId, token } = await kit.userWithToken(['developer']);
    const created = await kit.caller(token).userAppTokens.create({ user_id: userId, label: 'ci' });
    expect(created.plaintext).toMatch(/^rbt_/);
    const rows = await kit.deps.db.selectFrom('user_app_tokens').selectAll().execute();
    for (const row of rows) {
      expect(JSON.stringify(row)).not.toContain(created.plaintext);
      expect(JSON.stringify(row)).not.toContain(token);
    }
    const listed = await kit.caller(created.plaintext).userAppTokens.list({ user_id: userId });
    expect(listed.map((t) => t.label)).toEqual(['ci', 'test']);
    expect(JSON.stringify(listed)).not.toContain(created.plaintext.slice(12));
    const me = await kit.caller(created.plaintext).users.me();
    expect(me.id).toBe(userId);
  });

  it('rejects unknown, malformed, expired and revoked tokens and archived users with 401', async () => {
    // The fake clock moves past expiry while the cache's real-time TTL has not run out: read the database.
    kit.deps.config.authCacheTtlMs = 0;
    const { userId, token } = await kit.userWithToken(['developer']);
    expect(await codeOf(kit.caller(generateCredential('rbt_')).users.me())).toBe('UNAUTHORIZED');
    expect(await codeOf(kit.caller('nonsense').users.me())).toBe('UNAUTHORIZED');
    expect(await codeOf(kit.caller(null).users.me())).toBe('UNAUTHORIZED');

    const expiring = await kit.caller(token).userAppTokens.create({
      user_id: userId,
      label: 'short',
      expires_at: new Date(kit.clock.now + 60_000).toISOString(),
    });
    expect(await codeOf(kit.caller(expiring.plaintext).users.me())).toBe('ok');
    kit.clock.now += 120_000;
    expect(await codeOf(kit.caller(expiring.plaintext).users.me())).toBe('UNAUTHORIZED');

    const second = await kit.caller(token).userAppTokens.create({ user_id: userId, label: 'to revoke' });
    expect(await codeOf(kit.caller(second.plaintext).users.me())).toBe('ok');
    await kit.caller(token).userAppTokens.revoke({ user_id: userId, id: second.token.id });
    expect(await codeOf(kit.caller(second.plaintext).users.me())).toBe('UNAUTHORIZED');
    kit.deps.config.authCacheTtlMs = 1000;
  });

  it('revocation takes effect at once even with a warm cache', async () => {
    const { userId, token } = await kit.userWithToken(['developer']);
    const other = await kit.caller(token).userAppTokens.create({ user_id: userId, label: 'warm' });
    expect(await codeOf(kit.caller(other.plaintext).users.me())).toBe('ok'); // cache warm now
    await kit.caller(token).userAppTokens.revoke({ user_id: userId, id: other.token.id });
    expect(await codeOf(kit.caller(other.plaintext).users.me())).toBe('UNAUTHORIZED');
  });

  it('archiving a user stops their tokens at once', async () => {
    const admin = await kit.userWithToken(['developer', 'global_user_admin']);
    const victim = await kit.userWithToken(['developer']);
    expect(await codeOf(kit.caller(victim.token).users.me())).toBe('ok');
    await kit.caller(admin.token).users.archive({ id: victim.userId });
    expect(await codeOf(kit.caller(victim.token).users.me())).toBe('UNAUTHORIZED');
  });

  it('requires developer for any call and global_user_admin for other users\u2019 tokens', async () => {
    const plain = await kit.userWithToken([]);
    expect(await codeOf(kit.caller(plain.token).users.me())).toBe('FORBIDDEN');
    const dev = await kit.userWithToken(['developer']);
    const other = await kit.userWithToken(['developer']);
    expect(await codeOf(kit.caller(dev.token).userAppTokens.list({ user_id: other.userId }))).toBe('FORBIDDEN');
    expect(
      await codeOf(
        kit.caller(dev.token).users.create({ first_name: 'a', last_name: 'b', email: 'x@example.com', roles: [] }),
      ),
    ).toBe('FORBIDDEN');
    const admin = await kit.userWithToken(['developer', 'global_user_admin']);
    expect(await codeOf(kit.caller(admin.token).userAppTokens.list({ user_id: other.userId }))).toBe('ok');
  });

  it('keeps internal procedures for service credentials', async () => {
    const dev = await kit.userWithToken(['developer']);
    expect(await codeOf(kit.caller(dev.token).auth.authenticate({ credential: dev.token }))).toBe('FORBIDDEN');
    const { issueServiceCredential } = await import('./tokens.service.js');
    const svc = await issueServiceCredential(kit.deps, 'catalog');
    const principal = await kit.caller(svc).auth.authenticate({ credential: dev.token });
    expect(principal).toMatchObject({ kind: 'user', user_id: dev.userId });
  });

  it('answers 409 email_taken and 422 for an invalid email', async () => {
    const admin = await kit.userWithToken(['developer', 'global_user_admin'], `admin-${dialect}@example.com`);
    const input = { first_name: 'A', last_name: 'B', email: `dup-${dialect}@example.com`, roles: [] };
    await kit.caller(admin.token).users.create(input);
    expect(await codeOf(kit.caller(admin.token).users.create(input))).toBe('CONFLICT');
    expect(await codeOf(kit.caller(admin.token).users.create({ ...input, email: 'not-an-email' }))).toBe(
      'UNPROCESSABLE_CONTENT',
    );
  });
});

describe.each(await testDialects())('user app token lifetime and last use on %s', (dialect) => {
  let kit: IdentityTestKit;
  beforeAll(async () => {
    kit = await createIdentityTestKit(dialect);
  });
  afterAll(() => kit.destroy());

  it('writes last_used_at at most once per interval, not once per request', async () => {
    kit.deps.config.authCacheTtlMs = 0; // every call reaches the database: the throttle alone must hold writes back
    const { userId, token } = await kit.userWithToken(['developer']);
    let updates = 0;
    const db = kit.deps.db;
    const counting = db.withPlugin({
      transformQuery: (args) => {
        if (args.node.kind === 'UpdateQueryNode') updates++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    kit.deps.db = counting;
    try {
      for (let i = 0; i < 20; i++) await kit.caller(token).users.me();
      expect(updates).toBe(1);
      const first = (await kit.caller(token).userAppTokens.list({ user_id: userId }))[0]?.last_used_at;
      expect(first).toBe(new Date(kit.clock.now).toISOString());
      kit.clock.now += 30_000;
      await kit.caller(token).users.me();
      expect(updates).toBe(1);
      kit.clock.now += 31_000;
      await kit.caller(token).users.me();
      expect(updates).toBe(2);
      const second = (await kit.caller(token).userAppTokens.list({ user_id: userId }))[0]?.last_used_at;
      expect(second).toBe(new Date(kit.clock.now).toISOString());
    } finally {
      kit.deps.db = db;
      kit.deps.config.authCacheTtlMs = 1000;
    }
  });

  it('applies the instance maximum lifetime at creation and to tokens created before it was set', async () => {
    kit.deps.config.authCacheTtlMs = 0;
    const { userId, token } = await kit.userWithToken(['developer']);
    kit.deps.config.tokenMaxLifetimeMs = 2 * 86_400_000;
    try {
      const bounded = await kit.caller(token).userAppTokens.create({ user_id: userId, label: 'bounded' });
      expect(bounded.token.expires_at).toBe(new Date(kit.clock.now + 2 * 86_400_000).toISOString());
      const tooLong = kit.caller(token).userAppTokens.create({
        user_id: userId,
        label: 'too long',
        expires_at: new Date(kit.clock.now + 3 * 86_400_000).toISOString(),
      });
      expect(await codeOf(tooLong)).toBe('UNPROCESSABLE_CONTENT');
      kit.clock.now += 2 * 86_400_000;
      // `token` was created without expiry before the maximum was set: it is now older than the maximum.
      expect(await codeOf(kit.caller(token).users.me())).toBe('UNAUTHORIZED');
      expect(await codeOf(kit.caller(bounded.plaintext).users.me())).toBe('UNAUTHORIZED');
    } finally {
      kit.deps.config.tokenMaxLifetimeMs = null;
      kit.deps.config.authCacheTtlMs = 1000;
    }
  });
});
