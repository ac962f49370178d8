import { testDialects } from '@runbook/db/testing';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentityTestKit, type IdentityTestKit } from '../test-support.js';

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return { code: 'ok', app: undefined };
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    const cause = (e as TRPCError).cause as { code?: string; errors?: Array<{ source?: { pointer?: string } }> };
    return { code: (e as TRPCError).code, app: cause?.code, pointer: cause?.errors?.[0]?.source?.pointer };
  }
};

describe.each(await testDialects())('users on %s', (dialect) => {
  let kit: IdentityTestKit;
  let admin: { userId: string; token: string };
  beforeAll(async () => {
    kit = await createIdentityTestKit(dialect);
    admin = await kit.userWithToken(['developer', 'global_user_admin']);
  });
  afterAll(() => kit.destroy());

  it('lets a user change their own names but not their email or roles; an admin changes everything', async () => {
    const self = await kit.userWithToken(['developer']);
    const other = await kit.userWithToken(['developer']);
    const renamed = await kit
      .caller(self.token)
      .users.update({ id: self.userId, first_name: 'Grace', last_name: 'Hopper' });
    expect(renamed).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', name: 'Grace Hopper' });
    expect((await errorOf(kit.caller(self.token).users.update({ id: other.userId, first_name: 'X' }))).code).toBe(
      'FORBIDDEN',
    );
    expect(
      (await errorOf(kit.caller(self.token).users.update({ id: self.userId, email: 'me@example.com' }))).code,
    ).toBe('FORBIDDEN');
    expect(
      (
        await errorOf(
          kit
            .caller(self.token)
            .users.update({ id: self.userId, roles: [{ role: 'global_user_admin', workspace_id: null }] }),
        )
      ).code,
    ).toBe('FORBIDDEN');
    const email = `Changed-${dialect}@Example.com`;
    const changed = await kit.caller(admin.token).users.update({
      id: other.userId,
      email,
      roles: [
        { role: 'developer', workspace_id: '7' },
        { role: 'workspace_manager', workspace_id: '7' },
      ],
    });
    expect(changed.email).toBe(email.toLowerCase());
    expect(changed.roles).toEqual([
      { role: 'developer', workspace_id: '7' },
      { role: 'workspace_manager', workspace_id: '7' },
    ]);
  });

  it('answers 409 email_taken, and 422 role_not_scopable for a workspace-scoped admin role', async () => {
    const a = await kit.userWithToken(['developer']);
    const b = await kit.userWithToken(['developer']);
    const bUser = await kit.caller(admin.token).users.get({ id: b.userId });
    expect((await errorOf(kit.caller(admin.token).users.update({ id: a.userId, email: bUser.email }))).app).toBe(
      'email_taken',
    );
    const scoped = await errorOf(
      kit.caller(admin.token).users.update({
        id: a.userId,
        roles: [
          { role: 'developer', workspace_id: null },
          { role: 'integrations_admin', workspace_id: '3' },
        ],
      }),
    );
    expect(scoped).toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
      app: 'role_not_scopable',
      pointer: '/data/attributes/roles/1/workspace_id',
    });
  });

  it('applies role changes at once, even with a warm authentication cache', async () => {
    const user = await kit.userWithToken(['developer']);
    expect((await errorOf(kit.caller(user.token).users.me())).code).toBe('ok');
    await kit.caller(admin.token).users.update({ id: user.userId, roles: [] });
    expect((await errorOf(kit.caller(user.token).users.me())).code).toBe('FORBIDDEN');
  });

  it('keeps the last active global_user_admin', async () => {
    const other = await createIdentityTestKit(dialect);
    try {
      const only = await other.userWithToken(['developer', 'global_user_admin']);
      const demote = errorOf(
        other.caller(only.token).users.update({ id: only.userId, roles: [{ role: 'developer', workspace_id: null }] }),
      );
      expect((await demote).app).toBe('last_user_admin');
      expect((await errorOf(other.caller(only.token).users.archive({ id: only.userId }))).app).toBe('last_user_admin');
      const second = await other.userWithToken(['developer', 'global_user_admin']);
      await other.caller(second.token).users.archive({ id: only.userId });
      expect((await other.caller(second.token).users.get({ id: only.userId })).archived).toBe(true);
    } finally {
      await other.destroy();
    }
  });

  it('records creation, updates, role changes and archival in the audit trail', async () => {
    const created = await kit.caller(admin.token).users.create({
      first_name: 'Audit',
      last_name: 'Me',
      email: `audit-${dialect}@example.com`,
      roles: [{ role: 'developer', workspace_id: null }],
    });
    await kit.caller(admin.token).users.update({ id: created.id, last_name: 'Again', roles: [] });
    await kit.caller(admin.token).users.archive({ id: created.id });
    await kit.caller(admin.token).users.archive({ id: created.id });
    const logs = await kit.caller(admin.token).actionLogs.list({ user_id: created.id, page: {} });
    expect(logs.items.map((l) => l.event)).toEqual(['user_archived', 'roles_changed', 'user_updated', 'user_created']);
    for (const log of logs.items) expect(log).toMatchObject({ user_id: created.id, actor_id: admin.userId });
    expect(logs.items[1]?.details).toEqual({ before: [{ role: 'developer', workspace_id: null }], after: [] });
    expect(logs.items[2]?.details).toEqual({ fields: ['last_name'] });
  });

  it('answers 400 invalid_cursor for a cursor it did not produce', async () => {
    expect((await errorOf(kit.caller(admin.token).users.list({ page: { after: 'bogus' } }))).app).toBe(
      'invalid_cursor',
    );
  });
});
