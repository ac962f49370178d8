import { randomBytes } from 'node:crypto';
import { SYSTEM_PARAMETER_VALUE_MAX_BYTES } from '@runbook/contracts';
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appError,
  CREDENTIALS,
  createSecretsTestKit,
  redisEntries,
  type SecretsTestKit,
  testCaches,
} from '../test-support.js';

const dialects = await testDialects();
const caches = await testCaches();

describe.each(dialects)('system parameters on %s', (dialect) => {
  let kit: SecretsTestKit;
  beforeAll(async () => {
    kit = await createSecretsTestKit(dialect);
  });
  afterAll(() => kit.destroy());
  const admin = () => kit.caller(CREDENTIALS.admin);

  it('creates a parameter at version 1 with defaults, readable by id and by name', async () => {
    const created = await admin().systemParameters.create({
      name: 'payments_api_key',
      value: 'k',
      description: 'Payments',
    });
    expect(created).toMatchObject({
      name: 'payments_api_key',
      display_name: 'Payments api key',
      description: 'Payments',
      secret: true,
      value: null,
      version: 1,
      updated_by: '1',
    });
    expect(created.id).toMatch(/^[1-9][0-9]*$/);
    expect(created.created_at).toBe(created.updated_at);
    const dev = kit.caller(CREDENTIALS.developer);
    expect(await dev.systemParameters.get({ id_or_name: created.id })).toEqual(created);
    expect(await dev.systemParameters.get({ id_or_name: 'payments_api_key' })).toEqual(created);

    const plain = await admin().systemParameters.create({
      name: 'base_url',
      value: 'https://x.example',
      secret: false,
      display_name: 'Base URL',
    });
    expect(plain).toMatchObject({ display_name: 'Base URL', secret: false, value: 'https://x.example' });
  });

  it('answers 404 for unknown ids and names, 409 name_taken for a duplicate', async () => {
    expect((await appError(admin().systemParameters.get({ id_or_name: '999999' }))).status).toBe(404);
    expect((await appError(admin().systemParameters.get({ id_or_name: 'nope' }))).code).toBe('not_found');
    await admin().systemParameters.create({ name: 'dup', value: 'a' });
    const e = await appError(admin().systemParameters.create({ name: 'dup', value: 'b' }));
    expect([e.status, e.code]).toEqual([409, 'name_taken']);
  });

  it('validates names (pattern, length) with 422', async () => {
    for (const name of ['', 'Bad', '1abc', 'a-b', 'a b', 'a'.repeat(65)]) {
      const e = await appError(admin().systemParameters.create({ name, value: 'x' }));
      expect([e.status, e.code], name).toEqual([422, 'validation_failed']);
    }
    expect((await admin().systemParameters.create({ name: 'a'.repeat(64), value: 'x' })).name).toHaveLength(64);
  });

  it('limits values to SYSTEM_PARAMETER_VALUE_MAX_BYTES bytes of UTF-8 (413 value_too_large)', async () => {
    const max = SYSTEM_PARAMETER_VALUE_MAX_BYTES;
    await admin().systemParameters.create({ name: 'big_ok', value: 'x'.repeat(max) });
    for (const value of ['x'.repeat(max + 1), '\u00e9'.repeat(max / 2 + 1)]) {
      const e = await appError(admin().systemParameters.create({ name: 'too_big', value }));
      expect([e.status, e.code]).toEqual([413, 'value_too_large']);
    }
    const e = await appError(admin().systemParameters.update({ id_or_name: 'big_ok', value: 'y'.repeat(max + 1) }));
    expect(e.code).toBe('value_too_large');
  });

  it('updates with version +1; an omitted value is kept; stale expected_version is 409', async () => {
    const p = await admin().systemParameters.create({ name: 'upd', value: 'v1', secret: false });
    const renamed = await admin().systemParameters.update({
      id_or_name: 'upd',
      display_name: 'Updated',
      expected_version: 1,
    });
    expect(renamed).toMatchObject({ display_name: 'Updated', value: 'v1', version: 2 });
    const changed = await admin().systemParameters.update({ id_or_name: p.id, value: 'v2' });
    expect(changed).toMatchObject({ value: 'v2', version: 3, description: '' });
    const stale = await appError(
      admin().systemParameters.update({ id_or_name: 'upd', value: 'v3', expected_version: 2 }),
    );
    expect([stale.status, stale.code]).toEqual([409, 'version_conflict']);
    expect(stale.errors[0]?.meta).toEqual({ expected_version: 2, current_version: 3 });
    expect((await admin().systemParameters.get({ id_or_name: 'upd' })).value).toBe('v2');
    expect(await admin().systemParameters.update({ id_or_name: 'upd' })).toMatchObject({ version: 3 });
    expect((await appError(admin().systemParameters.update({ id_or_name: 'missing', value: 'x' }))).status).toBe(404);
  });

  it('answers a stale If-Match version with 412 precondition_failed (and expected_version with 409)', async () => {
    await admin().systemParameters.create({ name: 'cond', value: 'v1' });
    const ok = await admin().systemParameters.update({ id_or_name: 'cond', value: 'v2', if_match_version: 1 });
    expect(ok.version).toBe(2);
    const stale = await appError(
      admin().systemParameters.update({ id_or_name: 'cond', value: 'v3', if_match_version: 1 }),
    );
    expect([stale.status, stale.code]).toEqual([412, 'precondition_failed']);
    expect(stale.errors[0]).toMatchObject({
      source: { header: 'If-Match' },
      meta: { expected_version: 1, current_version: 2 },
    });
    expect(stale.message).toContain('If-Match: "2"');
    // Both preconditions given: each is checked with its own status.
    const both = await appError(
      admin().systemParameters.update({ id_or_name: 'cond', value: 'v3', if_match_version: 2, expected_version: 1 }),
    );
    expect(both.status).toBe(409);
    // A stale precondition fails even when nothing would change.
    expect((await appError(admin().systemParameters.update({ id_or_name: 'cond', if_match_version: 7 }))).status).toBe(
      412,
    );
    expect((await admin().systemParameters.get({ id_or_name: 'cond' })).version).toBe(2);
  });

  it('gives If-Match the same atomicity: of two concurrent conditional updates, one wins and one gets 412', async () => {
    await admin().systemParameters.create({ name: 'cond_race', value: 'v1' });
    const outcomes = await Promise.allSettled([
      admin().systemParameters.update({ id_or_name: 'cond_race', value: 'a', if_match_version: 1 }),
      admin().systemParameters.update({ id_or_name: 'cond_race', value: 'b', if_match_version: 1 }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect((await appError(Promise.reject(rejected.reason))).status).toBe(412);
  });

  it('checks versions atomically: of two concurrent updates from one version, one wins', async () => {
    await admin().systemParameters.create({ name: 'race', value: 'v1' });
    const outcomes = await Promise.allSettled([
      admin().systemParameters.update({ id_or_name: 'race', value: 'a', expected_version: 1 }),
      admin().systemParameters.update({ id_or_name: 'race', value: 'b', expected_version: 1 }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect((await appError(Promise.reject(rejected.reason))).code).toBe('version_conflict');
    expect((await admin().systemParameters.get({ id_or_name: 'race' })).version).toBe(2);
  });

  it('never changes a name (422 name_immutable); repeating the same name is fine', async () => {
    await admin().systemParameters.create({ name: 'fixed', value: 'x' });
    const e = await appError(admin().systemParameters.update({ id_or_name: 'fixed', name: 'other', value: 'y' }));
    expect([e.status, e.code]).toEqual([422, 'name_immutable']);
    expect((await admin().systemParameters.update({ id_or_name: 'fixed', name: 'fixed', value: 'y' })).name).toBe(
      'fixed',
    );
    expect((await appError(admin().systemParameters.get({ id_or_name: 'other' }))).status).toBe(404);
  });

  it('deletes (then 404), and audits create/update/delete with actor and versions, never values', async () => {
    const p = await admin().systemParameters.create({ name: 'gone', value: 'audit-secret-value' });
    await admin().systemParameters.update({ id_or_name: 'gone', value: 'audit-secret-value-2' });
    await kit.caller(CREDENTIALS.service).systemParameters.update({ id_or_name: 'gone', description: 'by a service' });
    await admin().systemParameters.delete({ id_or_name: 'gone' });
    expect((await appError(admin().systemParameters.get({ id_or_name: p.id }))).status).toBe(404);
    expect((await appError(admin().systemParameters.delete({ id_or_name: 'gone' }))).status).toBe(404);

    const log = await admin().systemParameters.auditLog({ parameter_id: p.id, page: { size: 10 } });
    expect(log.items.map((e) => [e.action, e.actor, e.old_version, e.new_version])).toEqual([
      ['delete', '1', 3, null],
      ['update', 'service:catalog', 2, 3],
      ['update', '1', 1, 2],
      ['create', '1', null, 1],
    ]);
    expect(log.items.every((e) => e.parameter_name === 'gone' && e.parameter_id === p.id)).toBe(true);
    expect(JSON.stringify(log)).not.toContain('audit-secret-value');
    // By name: every parameter that ever had it, also after deletion.
    const again = await admin().systemParameters.create({ name: 'gone', value: 'audit-secret-value-3' });
    const byName = await admin().systemParameters.auditLog({ parameter_name: 'gone', page: { size: 10 } });
    expect(byName.items.map((e) => [e.parameter_id, e.action])).toEqual([
      [again.id, 'create'],
      [p.id, 'delete'],
      [p.id, 'update'],
      [p.id, 'update'],
      [p.id, 'create'],
    ]);
    expect(JSON.stringify(byName)).not.toContain('audit-secret-value');
    const all = await admin().systemParameters.auditLog({ page: { size: 2 } });
    expect(all.items).toHaveLength(2);
    expect(all.next_cursor).not.toBeNull();
    expect((await appError(kit.caller(CREDENTIALS.developer).systemParameters.auditLog({}))).status).toBe(403);
  });

  it('requires integrations_admin to write (services may), developer to read, and a credential at all', async () => {
    const dev = kit.caller(CREDENTIALS.developer);
    expect((await appError(dev.systemParameters.create({ name: 'nope', value: 'x' }))).status).toBe(403);
    expect((await appError(dev.systemParameters.update({ id_or_name: 'payments_api_key', value: 'x' }))).status).toBe(
      403,
    );
    expect((await appError(dev.systemParameters.delete({ id_or_name: 'payments_api_key' }))).status).toBe(403);
    expect(await appError(kit.caller(CREDENTIALS.plain).systemParameters.list({}))).toMatchObject({ status: 403 });
    expect(await appError(kit.caller(null).systemParameters.list({}))).toMatchObject({ status: 401 });
    expect(await appError(kit.caller('forged').systemParameters.list({}))).toMatchObject({ status: 401 });
    const bySvc = await kit.caller(CREDENTIALS.service).systemParameters.create({ name: 'svc_made', value: 'x' });
    expect(bySvc.updated_by).toBeNull();
  });

  it('lists by name with a literal name_prefix and keyset cursors; 400 for a forged cursor', async () => {
    for (const name of ['lp_b', 'lp_a', 'lp_c', 'lpx_d', 'lp_e'])
      await admin().systemParameters.create({ name, value: name, secret: false });
    const first = await admin().systemParameters.list({ name_prefix: 'lp_', page: { size: 2 } });
    expect(first.items.map((p) => p.name)).toEqual(['lp_a', 'lp_b']);
    expect(first.total).toBe(4);
    const second = await admin().systemParameters.list({
      name_prefix: 'lp_',
      page: { size: 2, after: first.next_cursor as string },
    });
    expect(second.items.map((p) => p.name)).toEqual(['lp_c', 'lp_e']);
    expect(second.number).toBe(2);
    expect(second.next_cursor).toBeNull();
    const everything = await admin().systemParameters.list({ page: { size: 100 } });
    const names = everything.items.map((p) => p.name);
    expect(names).toEqual([...names].sort());
    expect((await appError(admin().systemParameters.list({ page: { after: 'forged' } }))).status).toBe(400);
  });

  it('refuses creation beyond the maximum count with 422 parameter_limit_reached', async () => {
    const small = await createSecretsTestKit(dialect, { maxParameters: 2 });
    try {
      const a = small.caller(CREDENTIALS.admin);
      await a.systemParameters.create({ name: 'one', value: '1' });
      await a.systemParameters.create({ name: 'two', value: '2' });
      const e = await appError(a.systemParameters.create({ name: 'three', value: '3' }));
      expect([e.status, e.code]).toEqual([422, 'parameter_limit_reached']);
    } finally {
      await small.destroy();
    }
  });

  it('holds the maximum count under concurrent creates: exactly the room left succeeds, the rest is 422', async () => {
    const small = await createSecretsTestKit(dialect, { maxParameters: 3 });
    try {
      const a = small.caller(CREDENTIALS.admin);
      await a.systemParameters.create({ name: 'existing', value: '0' });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => a.systemParameters.create({ name: `racer_${i}`, value: String(i) })),
      );
      const created = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = await Promise.all(
        outcomes.flatMap((o) => (o.status === 'rejected' ? [appError(Promise.reject(o.reason))] : [])),
      );
      expect(created).toHaveLength(2);
      expect(refused.map((e) => [e.status, e.code])).toEqual(Array(10).fill([422, 'parameter_limit_reached']));
      const all = await a.systemParameters.list({ page: { size: 100 } });
      expect(all.total).toBe(3);
      // The refused creates left nothing behind: no audit entry names a refused racer.
      const audit = await a.systemParameters.auditLog({ page: { size: 100 } });
      expect(audit.items.filter((entry) => entry.action === 'create')).toHaveLength(3);
    } finally {
      await small.destroy();
    }
  });
});

describe.each(dialects.flatMap((d) => caches.map((c) => [d, c] as const)))(
  'secret values are write-only on %s with a %s cache',
  (dialect, cache) => {
    let kit: SecretsTestKit;
    beforeAll(async () => {
      kit = await createSecretsTestKit(dialect, { cache });
    });
    afterAll(() => kit.destroy());

    it('no read, list, preview, audit entry, error, database row or cache entry holds the plaintext', async () => {
      const plaintext = `S3cret-${randomBytes(8).toString('hex')}`;
      const admin = kit.caller(CREDENTIALS.admin);
      const outputs: unknown[] = [];
      outputs.push(await admin.systemParameters.create({ name: 'wo_token', value: plaintext }));
      outputs.push(await admin.systemParameters.create({ name: 'wo_header', value: `${plaintext}\r\nX-Evil: 1` }));
      outputs.push(await admin.systemParameters.update({ id_or_name: 'wo_token', description: 'still secret' }));
      outputs.push(await admin.systemParameters.get({ id_or_name: 'wo_token' }));
      outputs.push(await admin.systemParameters.list({}));
      outputs.push(await admin.systemParameters.auditLog({}));
      outputs.push(await admin.systemParameters.preview({ template: 'Bearer {{system.wo_token}}', context: 'header' }));
      outputs.push(await admin.systemParameters.preview({ template: '{"t": "{{system.wo_token}}"}', context: 'json' }));
      outputs.push(
        await admin.resolution.validate({ templates: [{ template: '{{system.wo_token}}', context: 'text' }] }),
      );
      // Errors: duplicate with the value, too large with the value, header injection at resolution.
      outputs.push((await appError(admin.systemParameters.create({ name: 'wo_token', value: plaintext }))).errors);
      outputs.push(
        (await appError(admin.systemParameters.update({ id_or_name: 'wo_token', value: plaintext.repeat(2000) })))
          .errors,
      );
      const service = kit.caller(CREDENTIALS.service);
      outputs.push(
        (
          await appError(
            service.resolution.resolve({ templates: [{ template: 'Bearer {{system.wo_header}}', context: 'header' }] }),
          )
        ).errors,
      );
      outputs.push(
        (
          await appError(
            service.resolution.resolve({ templates: [{ template: '{{system.wo_token}}/x', context: 'url' }] }),
          )
        ).errors,
      );
      for (const output of outputs) expect(JSON.stringify(output)).not.toContain(plaintext);
      expect((await admin.systemParameters.get({ id_or_name: 'wo_token' })).value).toBeNull();

      // The plaintext does exist — for services resolving for execution.
      const { results } = await service.resolution.resolve({
        templates: [{ template: '{{system.wo_token}}', context: 'text' }],
      });
      expect(results).toEqual([plaintext]);

      const forms = [plaintext, Buffer.from(plaintext).toString('base64'), Buffer.from(plaintext).toString('hex')];
      const rows = [
        ...(await kit.deps.db.selectFrom('system_parameters').selectAll().execute()),
        ...(await kit.deps.db.selectFrom('system_parameter_audit').selectAll().execute()),
      ];
      expect(rows.length).toBeGreaterThan(2);
      for (const form of forms) expect(JSON.stringify(rows)).not.toContain(form);

      const [cached] = await kit.deps.cache.mget(['param:wo_token']);
      expect(cached).toContain('"ciphertext"');
      for (const form of forms) expect(cached).not.toContain(form);
      if (cache === 'redis') {
        const entries = await redisEntries(kit.prefix);
        expect(entries.map(([k]) => k)).toContain(`${kit.prefix}param:wo_token`);
        for (const form of forms) expect(JSON.stringify(entries)).not.toContain(form);
      }
    });
  },
);
