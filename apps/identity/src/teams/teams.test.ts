import { testDialects } from '@runbook/db/testing';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentityTestKit, type IdentityTestKit } from '../test-support.js';

const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return { code: 'ok' } as const;
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    const cause = (e as TRPCError).cause as { code?: string; errors?: Array<{ meta?: Record<string, unknown> }> };
    return { code: (e as TRPCError).code, app: cause?.code, meta: cause?.errors?.[0]?.meta };
  }
};

describe.each(await testDialects())('teams on %s', (dialect) => {
  let kit: IdentityTestKit;
  let manager: { userId: string; token: string };
  let dev: { userId: string; token: string };
  beforeAll(async () => {
    kit = await createIdentityTestKit(dialect);
    manager = await kit.userWithToken(['developer', 'workspace_manager']);
    dev = await kit.userWithToken(['developer']);
  });
  afterAll(() => kit.destroy());

  it('creates, lists, renames and deletes teams; members are kept in ascending order', async () => {
    const team = await kit.caller(manager.token).teams.create({
      name: 'On-call',
      description: 'Pager holders',
      member_ids: [dev.userId, manager.userId, dev.userId],
    });
    expect(team).toMatchObject({ name: 'On-call', description: 'Pager holders' });
    expect(team.member_ids).toEqual([manager.userId, dev.userId].sort((a, b) => Number(a) - Number(b)));
    const renamed = await kit.caller(manager.token).teams.update({ id: team.id, name: 'Primary on-call' });
    expect(renamed.name).toBe('Primary on-call');
    const mine = await kit.caller(dev.token).teams.list({ member_id: dev.userId, page: {} });
    expect(mine.items.map((t) => t.id)).toEqual([team.id]);
    expect((await kit.caller(dev.token).teams.list({ page: {} })).total).toBe(1);
    await kit.caller(manager.token).teams.delete({ id: team.id });
    expect((await errorOf(kit.caller(dev.token).teams.get({ id: team.id }))).code).toBe('NOT_FOUND');
    expect((await kit.caller(manager.token).users.get({ id: dev.userId })).archived).toBe(false);
  });

  it('adds members idempotently, removes them, and rejects unknown or archived users', async () => {
    const admin = await kit.userWithToken(['developer', 'global_user_admin']);
    const archived = await kit.userWithToken(['developer']);
    await kit.caller(admin.token).users.archive({ id: archived.userId });
    const team = await kit.caller(manager.token).teams.create({ name: 'Members', description: '', member_ids: [] });
    await kit.caller(manager.token).teams.addMembers({ id: team.id, user_ids: [dev.userId] });
    const again = await kit.caller(manager.token).teams.addMembers({ id: team.id, user_ids: [dev.userId] });
    expect(again.member_ids).toEqual([dev.userId]);
    const bad = await errorOf(
      kit.caller(manager.token).teams.addMembers({ id: team.id, user_ids: [archived.userId, '999999'] }),
    );
    expect(bad).toMatchObject({ code: 'UNPROCESSABLE_CONTENT', app: 'invalid_member' });
    expect(bad.meta).toEqual({ invalid_ids: [archived.userId, '999999'] });
    expect((await kit.caller(dev.token).teams.get({ id: team.id })).member_ids).toEqual([dev.userId]);
    await kit.caller(manager.token).teams.removeMember({ id: team.id, user_id: dev.userId });
    expect((await kit.caller(dev.token).teams.get({ id: team.id })).member_ids).toEqual([]);
    expect(
      (await errorOf(kit.caller(manager.token).teams.removeMember({ id: team.id, user_id: dev.userId }))).code,
    ).toBe('NOT_FOUND');
  });

  it('tells which of the given teams a user belongs to', async () => {
    const other = await kit.userWithToken(['developer']);
    const create = (name: string, member_ids: string[]) =>
      kit
        .caller(manager.token)
        .teams.create({ name, description: '', member_ids })
        .then((t) => t.id);
    const blue = await create('Blue', [dev.userId]);
    const green = await create('Green', [other.userId]);
    const red = await create('Red', [dev.userId, other.userId]);
    const { issueServiceCredential } = await import('../tokens/tokens.service.js');
    const service = await issueServiceCredential(kit.deps, 'catalog');
    const memberships = (user_id: string, team_ids: string[]) =>
      kit.caller(service).teams.memberships({ user_id, team_ids });
    expect(await memberships(dev.userId, [red, green, blue, red, '999999'])).toEqual({ team_ids: [blue, red] });
    expect(await memberships(other.userId, [blue])).toEqual({ team_ids: [] });
    expect(await memberships('999999', [blue, green, red])).toEqual({ team_ids: [] });
    await kit.caller(manager.token).teams.removeMember({ id: red, user_id: dev.userId });
    expect(await memberships(dev.userId, [green, red])).toEqual({ team_ids: [] });
    expect((await errorOf(memberships(dev.userId, []))).code).toBe('UNPROCESSABLE_CONTENT');
    expect((await errorOf(kit.caller(null).teams.memberships({ user_id: dev.userId, team_ids: [blue] }))).code).toBe(
      'UNAUTHORIZED',
    );
    // Internal: users read members through teams.get.
    expect(
      (await errorOf(kit.caller(manager.token).teams.memberships({ user_id: dev.userId, team_ids: [blue] }))).code,
    ).toBe('FORBIDDEN');
  });

  it('answers 409 name_taken and needs workspace_manager for changes', async () => {
    await kit.caller(manager.token).teams.create({ name: 'Unique', description: '', member_ids: [] });
    expect(
      (await errorOf(kit.caller(manager.token).teams.create({ name: 'Unique', description: '', member_ids: [] }))).app,
    ).toBe('name_taken');
    expect(
      (await errorOf(kit.caller(dev.token).teams.create({ name: 'Nope', description: '', member_ids: [] }))).code,
    ).toBe('FORBIDDEN');
    // Global user admins manage teams too (DESIGN §4); either role suffices.
    const userAdmin = await kit.userWithToken(['developer', 'global_user_admin']);
    const byAdmin = await kit
      .caller(userAdmin.token)
      .teams.create({ name: 'By admin', description: '', member_ids: [] });
    await kit.caller(userAdmin.token).teams.addMembers({ id: byAdmin.id, user_ids: [dev.userId] });
    await kit.caller(userAdmin.token).teams.delete({ id: byAdmin.id });
    const refused = await errorOf(kit.caller(dev.token).teams.update({ id: byAdmin.id, name: 'x' }));
    expect(refused.code).toBe('FORBIDDEN');
    const scoped = await kit.userWithToken(['developer', { role: 'workspace_manager', workspace_id: '5' }]);
    expect(
      (await errorOf(kit.caller(scoped.token).teams.create({ name: 'Nope', description: '', member_ids: [] }))).code,
    ).toBe('FORBIDDEN');
  });
});
