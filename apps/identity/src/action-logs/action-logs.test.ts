import { testDialects } from '@runbook/db/testing';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential, hashCredential } from '../auth/credential-format.js';
import { createFailureCounter } from '../auth/failure-counter.js';
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

describe.each(await testDialects())('audit trail on %s', (dialect) => {
  let kit: IdentityTestKit;
  let admin: { userId: string; token: string };
  beforeAll(async () => {
    kit = await createIdentityTestKit(dialect);
    admin = await kit.userWithToken(['developer', 'global_user_admin']);
  });
  afterAll(() => kit.destroy());

  it('records token creation and revocation, never the token', async () => {
    const user = await kit.userWithToken(['developer']);
    const created = await kit.caller(user.token).userAppTokens.create({ user_id: user.userId, label: 'deploy bot' });
    await kit.caller(admin.token).userAppTokens.revoke({ user_id: user.userId, id: created.token.id });
    await kit.caller(admin.token).userAppTokens.revoke({ user_id: user.userId, id: created.token.id });
    const created_logs = await kit.caller(admin.token).actionLogs.list({
      user_id: user.userId,
      event: 'user_app_token_created',
      page: {},
    });
    expect(created_logs.items.map((l) => l.details.label)).toEqual(['deploy bot', 'test']);
    expect(created_logs.items[0]).toMatchObject({
      actor_id: user.userId,
      subject_type: 'user_app_token',
      subject_id: created.token.id,
    });
    const revoked = await kit.caller(admin.token).actionLogs.list({ event: 'user_app_token_revoked', page: {} });
    expect(revoked.items).toHaveLength(1);
    expect(revoked.items[0]).toMatchObject({
      user_id: user.userId,
      actor_id: admin.userId,
      subject_id: created.token.id,
    });
    const everything = JSON.stringify(await kit.deps.db.selectFrom('action_logs').selectAll().execute());
    expect(everything).not.toContain(created.plaintext);
    expect(everything).not.toContain(created.plaintext.slice(4, 40));
  });

  it('records repeated failures of one credential once per window, with a hash prefix only', async () => {
    kit.deps.config.authCacheTtlMs = 0;
    const user = await kit.userWithToken(['developer']);
    const doomed = await kit.caller(user.token).userAppTokens.create({ user_id: user.userId, label: 'doomed' });
    await kit.caller(user.token).userAppTokens.revoke({ user_id: user.userId, id: doomed.token.id });
    const unknown = generateCredential('rbt_');
    for (let i = 0; i < 12; i++) {
      expect(await codeOf(kit.caller(doomed.plaintext).users.me())).toBe('UNAUTHORIZED');
      expect(await codeOf(kit.caller(unknown).users.me())).toBe('UNAUTHORIZED');
    }
    for (let i = 0; i < 20; i++) expect(await codeOf(kit.caller('not-a-token').users.me())).toBe('UNAUTHORIZED');
    const logs = await kit.caller(admin.token).actionLogs.list({ event: 'authentication_failures', page: {} });
    expect(logs.items).toHaveLength(2);
    const [ofUnknown, ofRevoked] = logs.items;
    expect(ofRevoked).toMatchObject({
      user_id: user.userId,
      actor_id: null,
      subject_type: 'user_app_token',
      subject_id: doomed.token.id,
      details: { reason: 'revoked', failures: 5, window_seconds: 60 },
    });
    expect(ofUnknown).toMatchObject({ user_id: null, subject_id: null, details: { reason: 'unknown', failures: 5 } });
    expect(ofUnknown?.details.credential_sha256_prefix).toBe(hashCredential(unknown).slice(0, 16));
    expect(JSON.stringify(logs)).not.toContain(unknown);

    // A new window records again once the threshold is reached again (a one-second window here).
    const counter = kit.deps.authFailures;
    kit.deps.authFailures = createFailureCounter({ threshold: 5, windowSeconds: 1 });
    try {
      for (let i = 0; i < 7; i++) await codeOf(kit.caller(doomed.plaintext).users.me());
      const again = await kit.caller(admin.token).actionLogs.list({ event: 'authentication_failures', page: {} });
      expect(again.items).toHaveLength(3);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      for (let i = 0; i < 5; i++) await codeOf(kit.caller(doomed.plaintext).users.me());
      const later = await kit.caller(admin.token).actionLogs.list({ event: 'authentication_failures', page: {} });
      expect(later.items).toHaveLength(4);
    } finally {
      kit.deps.authFailures = counter;
    }
    kit.deps.config.authCacheTtlMs = 1000;
  });

  it('filters by time range and pages newest first; only global_user_admin may read it', async () => {
    kit.clock.now += 1000;
    const from = new Date(kit.clock.now).toISOString();
    const user = await kit.userWithToken(['developer']);
    kit.clock.now += 1000;
    await kit.caller(user.token).userAppTokens.create({ user_id: user.userId, label: 'later' });
    const to = new Date(kit.clock.now).toISOString();
    const before = await kit
      .caller(admin.token)
      .actionLogs.list({ user_id: user.userId, created_before: to, page: {} });
    expect(before.items.map((l) => l.event)).toEqual(['user_app_token_created', 'user_created']);
    const inRange = await kit.caller(admin.token).actionLogs.list({
      user_id: user.userId,
      created_after: to,
      page: { size: 1 },
    });
    expect(inRange.items.map((l) => l.details.label)).toEqual(['later']);
    const all = await kit.caller(admin.token).actionLogs.list({ created_after: from, page: { size: 1 } });
    expect(all.total).toBe(3);
    expect(all.next_cursor).not.toBeNull();
    const second = await kit.caller(admin.token).actionLogs.list({
      created_after: from,
      page: { size: 1, after: all.next_cursor ?? '' },
    });
    expect(Number(second.items[0]?.id)).toBeLessThan(Number(all.items[0]?.id));
    expect(await codeOf(kit.caller(user.token).actionLogs.list({ page: {} }))).toBe('FORBIDDEN');
  });
});
