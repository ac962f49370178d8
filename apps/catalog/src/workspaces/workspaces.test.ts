import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appErrorOf, type CatalogCaller, type CatalogTestKit, codeOf, createCatalogTestKit } from '../test-support.js';

describe.each(await testDialects())('workspaces on %s', (dialect) => {
  let kit: CatalogTestKit;
  let manager: CatalogCaller;
  let developer: CatalogCaller;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
    manager = kit.as(['developer', 'workspace_manager']);
    developer = kit.as(['developer']);
  });
  afterAll(() => kit.destroy());

  it('creates, gets and lists workspaces', async () => {
    const pay = await manager.workspaces.create({ name: 'Payments', key: 'PAY', description: 'Releases' });
    expect(pay).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      name: 'Payments',
      key: 'PAY',
      description: 'Releases',
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: '2026-11-21T12:00:00.000Z',
    });
    const ops = await manager.workspaces.create({ name: 'Ops' });
    expect(ops).toMatchObject({ key: null, description: '' });
    expect(await developer.workspaces.get({ id: pay.id })).toEqual(pay);

    const all = await developer.workspaces.list({ page: {} });
    expect(all).toMatchObject({ number: 1, total: 2, next_cursor: null });
    expect(all.items).toEqual([pay, ops]);
    const first = await developer.workspaces.list({ page: { size: 1 } });
    expect(first.items).toEqual([pay]);
    const second = await developer.workspaces.list({ page: { size: 1, after: first.next_cursor ?? '' } });
    expect(second).toMatchObject({ items: [ops], number: 2, total: 2, next_cursor: null });
  });

  it('answers 409 key_taken, 422 with pointers and 404', async () => {
    await manager.workspaces.create({ name: 'Keyed', key: 'DUP' });
    const taken = await appErrorOf(manager.workspaces.create({ name: 'Again', key: 'DUP' }));
    expect(taken).toMatchObject({ status: 409, code: 'key_taken' });

    const invalid = await appErrorOf(manager.workspaces.create({ name: ' ', key: 'lower' }));
    expect(invalid.status).toBe(422);
    expect(invalid.errors.map((e) => e.source?.pointer).sort()).toEqual(['/key', '/name']);

    expect(await codeOf(developer.workspaces.get({ id: '999999' }))).toBe('NOT_FOUND');
    expect(await codeOf(developer.workspaces.get({ id: '0' }))).toBe('UNPROCESSABLE_CONTENT');
  });

  it('lets only a global workspace_manager create workspaces', async () => {
    const [ws] = (await developer.workspaces.list({ page: {} })).items;
    expect(await codeOf(developer.workspaces.create({ name: 'Nope' }))).toBe('FORBIDDEN');
    const scoped = kit.as(['developer', { role: 'workspace_manager', workspace_id: ws?.id ?? null }]);
    expect(await codeOf(scoped.workspaces.create({ name: 'Nope' }))).toBe('FORBIDDEN');
    expect(await codeOf(kit.as(['workspace_manager']).workspaces.list({ page: {} }))).toBe('FORBIDDEN');
    expect(await codeOf(kit.caller(null).workspaces.list({ page: {} }))).toBe('UNAUTHORIZED');
    expect(await codeOf(kit.caller('unknown').workspaces.list({ page: {} }))).toBe('UNAUTHORIZED');
  });
});
