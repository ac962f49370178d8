import { createRedisCache } from '@runbook/cache';
import { AppError } from '@runbook/contracts';
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateValidationError } from '../client.js';
import {
  appError,
  CREDENTIALS,
  callerFor,
  createSecretsTestKit,
  type SecretsTestKit,
  testCaches,
  uniquePrefix,
} from '../test-support.js';
import { TEMPORARY_CREDENTIALS_MESSAGE } from './resolution.service.js';

const dialects = await testDialects();
const caches = await testCaches();

describe.each(dialects.flatMap((d) => caches.map((c) => [d, c] as const)))(
  'resolution on %s with a %s cache',
  (dialect, cache) => {
    let kit: SecretsTestKit;
    beforeAll(async () => {
      kit = await createSecretsTestKit(dialect, { cache });
      const admin = kit.caller(CREDENTIALS.admin);
      await admin.systemParameters.create({ name: 'api_key', value: 'k-123', secret: true });
      await admin.systemParameters.create({ name: 'host', value: 'api.example.com', secret: false });
      await admin.systemParameters.create({ name: 'quote', value: 'say "hi"\n', secret: false });
      for (let i = 0; i < 10; i++)
        await admin.systemParameters.create({ name: `n${i}`, value: `v${i}`, secret: i % 2 === 0 });
    });
    afterAll(() => kit.destroy());
    const service = () => kit.caller(CREDENTIALS.service);

    it('resolves several templates in their contexts and reports the versions used', async () => {
      await kit.caller(CREDENTIALS.admin).systemParameters.update({ id_or_name: 'api_key', value: 'k-456' });
      const out = await service().resolution.resolve({
        templates: [
          { template: 'https://{{system.host}}/v1', context: 'url' },
          { template: 'Bearer {{ system.api_key }}', context: 'header' },
          { template: '{"key": "{{system.api_key}}", "q": "{{system.quote}}"}', context: 'json' },
          { template: 'plain text, no references', context: 'text' },
        ],
      });
      expect(out.results[0]).toBe('https://api.example.com/v1');
      expect(out.results[1]).toBe('Bearer k-456');
      expect(JSON.parse(out.results[2] as string)).toEqual({ key: 'k-456', q: 'say "hi"\n' });
      expect(out.results[3]).toBe('plain text, no references');
      expect(out.references).toEqual([
        { name: 'api_key', version: 2 },
        { name: 'host', version: 1 },
        { name: 'quote', version: 1 },
      ]);
    });

    it('fails the whole call with 422 naming every unknown parameter', async () => {
      const e = await appError(
        service().resolution.resolve({
          templates: [
            { template: '{{system.host}} {{system.missing_one}}', context: 'text' },
            { template: '{{system.missing_two}} {{system.missing_one}}', context: 'text' },
          ],
        }),
      );
      expect([e.status, e.code]).toEqual([422, 'unknown_system_parameters']);
      expect(e.errors[0]?.meta).toEqual({ missing: ['missing_one', 'missing_two'] });
      expect(e.message).toContain('missing_one');
      expect(e.message).toContain('missing_two');
    });

    it('points context errors at the template', async () => {
      const e = await appError(
        service().resolution.resolve({
          templates: [
            { template: 'ok', context: 'text' },
            { template: '{"a": {{system.host}}}', context: 'json' },
          ],
        }),
      );
      expect(e.code).toBe('invalid_template');
      expect(e.errors[0]?.source).toEqual({ pointer: '/templates/1/template' });
      expect(
        (await appError(service().resolution.resolve({ templates: [{ template: '{{system.host}}', context: 'url' }] })))
          .code,
      ).toBe('invalid_url');
    });

    it('refuses user tokens (403) — even an integrations admin — and anonymous calls (401)', async () => {
      const input = { templates: [{ template: '{{system.api_key}}', context: 'text' as const }] };
      expect((await appError(kit.caller(CREDENTIALS.admin).resolution.resolve(input))).status).toBe(403);
      expect((await appError(kit.caller(CREDENTIALS.developer).resolution.resolve(input))).status).toBe(403);
      expect((await appError(kit.caller(null).resolution.resolve(input))).status).toBe(401);
    });

    it('previews with secrets masked, non-secrets shown, and missing names listed', async () => {
      const dev = kit.caller(CREDENTIALS.developer);
      const shown = await dev.systemParameters.preview({
        template: 'https://{{system.host}}/?k={{system.api_key}}',
        context: 'url',
      });
      expect(shown.result).toBe('https://api.example.com/?k=\u2022\u2022\u2022\u2022');
      expect(shown.missing).toEqual([]);
      expect(shown.references.map((r) => [r.name, r.secret])).toEqual([
        ['api_key', true],
        ['host', false],
      ]);
      const missing = await dev.systemParameters.preview({
        template: '{{system.host}} {{system.nope}} {{system.nada}}',
        context: 'text',
      });
      expect(missing).toEqual({
        result: null,
        references: [expect.objectContaining({ name: 'host' })],
        missing: ['nada', 'nope'],
      });
      expect((await appError(dev.systemParameters.preview({ template: '{{system.Bad}}', context: 'text' }))).code).toBe(
        'invalid_template',
      );
      expect(
        (await appError(kit.caller(CREDENTIALS.plain).systemParameters.preview({ template: 'x', context: 'text' })))
          .status,
      ).toBe(403);
    });

    it('validates templates for users and services, with the temporary credentials rule', async () => {
      for (const caller of [kit.caller(CREDENTIALS.developer), service()]) {
        const result = await caller.resolution.validate({
          templates: [
            { template: 'Bearer {{system.api_key}}', context: 'header', pointer: '/headers/0/value' },
            { template: '{{system.unknown_x}} {{system.host}} {{system.unknown_a}}', context: 'text' },
            { template: '{{system.api_key}}', context: 'text', field_type: 'temporary_credentials' },
            { template: 'no references here', context: 'text', field_type: 'temporary_credentials' },
            { template: '{"a": {{system.host}}}', context: 'json', pointer: '/body' },
            { template: '{{system.unknown_x}}', context: 'url', pointer: '/url' },
          ],
        });
        expect(result.valid).toBe(false);
        expect(result.missing).toEqual(['unknown_a', 'unknown_x']);
        expect(result.errors.map((e) => [e.index, e.pointer, e.code])).toEqual([
          [1, undefined, 'unknown_system_parameters'],
          [2, undefined, 'temporary_credentials_not_allowed'],
          [4, '/body', 'invalid_template'],
          [5, '/url', 'unknown_system_parameters'],
        ]);
        expect(result.errors[0]?.meta).toEqual({ missing: ['unknown_a', 'unknown_x'] });
        expect(result.errors[0]?.detail).toContain('unknown_a, unknown_x');
        expect(result.errors[1]?.detail).toBe(TEMPORARY_CREDENTIALS_MESSAGE);
        expect(result.referenced).toEqual([['api_key'], ['unknown_x', 'host', 'unknown_a'], [], [], [], ['unknown_x']]);
        expect(JSON.stringify(result)).not.toContain('k-');
      }
      const ok = await service().resolution.validate({
        templates: [{ template: 'https://{{system.host}}', context: 'url' }],
      });
      expect(ok).toEqual({ valid: true, missing: [], errors: [], referenced: [['host']] });
      expect(await service().resolution.validate({ templates: [] })).toEqual({
        valid: true,
        missing: [],
        errors: [],
        referenced: [],
      });
    });

    it('turns a validation result into the 422 a storing service answers (templateValidationError)', async () => {
      const result = await service().resolution.validate({
        templates: [
          { template: '{{system.host}}', context: 'url', pointer: '/data/attributes/url' },
          { template: '{{system.nope}}', context: 'text', pointer: '/data/attributes/body' },
          { template: '{{ system.Bad }}', context: 'text' },
        ],
      });
      const error = templateValidationError(result);
      expect(error).toBeInstanceOf(AppError);
      expect(error?.status).toBe(422);
      expect(error?.errors.map((e) => [e.code, e.source?.pointer])).toEqual([
        ['unknown_system_parameters', '/data/attributes/body'],
        ['invalid_template', '/templates/2'],
      ]);
      expect(error?.errors[0]?.meta).toEqual({ missing: ['nope'] });
      expect(templateValidationError(await service().resolution.validate({ templates: [] }))).toBeNull();
    });

    it('refuses system parameter references in temporary credentials fields everywhere (422)', async () => {
      const template = {
        template: 'token={{system.api_key}}',
        context: 'text' as const,
        field_type: 'temporary_credentials',
      };
      const resolved = await appError(
        service().resolution.resolve({ templates: [{ template: 'ok', context: 'text' }, template] }),
      );
      expect([resolved.status, resolved.code]).toEqual([422, 'temporary_credentials_not_allowed']);
      expect(resolved.errors[0]?.source).toEqual({ pointer: '/templates/1/template' });
      expect(resolved.message).toContain('Use a system parameter instead');
      const previewed = await appError(kit.caller(CREDENTIALS.developer).systemParameters.preview(template));
      expect(previewed.code).toBe('temporary_credentials_not_allowed');
      // A malformed attempt at a reference counts as a reference; plain text is fine.
      expect(
        (
          await appError(
            service().resolution.resolve({
              templates: [{ template: '{{ system.', context: 'text', field_type: 'temporary_credentials' }],
            }),
          )
        ).code,
      ).toBe('temporary_credentials_not_allowed');
      const plain = await service().resolution.resolve({
        templates: [{ template: 'AKIA-temporary', context: 'text', field_type: 'temporary_credentials' }],
      });
      expect(plain.results).toEqual(['AKIA-temporary']);
    });

    it('costs one mget + one database query + one mset cold, and one cache round trip and no query warm', async () => {
      const names = Array.from({ length: 10 }, (_, i) => `n${i}`);
      const templates = [{ template: names.map((n) => `{{system.${n}}}`).join(','), context: 'text' as const }];
      // Writes invalidate: make every name cold again.
      for (const n of names)
        await kit.caller(CREDENTIALS.admin).systemParameters.update({ id_or_name: n, description: 'touched' });

      const before = kit.deps.cache.stats.roundTrips;
      kit.queries.count = 0;
      expect((await service().resolution.resolve({ templates })).results[0]).toBe(
        names.map((_, i) => `v${i}`).join(','),
      );
      expect(kit.deps.cache.stats.roundTrips - before).toBe(2); // mget + mset
      expect(kit.queries.count).toBe(1);

      const warm = kit.deps.cache.stats.roundTrips;
      kit.queries.count = 0;
      expect((await service().resolution.resolve({ templates })).results[0]).toBe(
        names.map((_, i) => `v${i}`).join(','),
      );
      expect(kit.deps.cache.stats.roundTrips - warm).toBe(1);
      expect(kit.queries.count).toBe(0);
    });

    it('shares one database read between concurrent misses of the same names', async () => {
      await kit.caller(CREDENTIALS.admin).systemParameters.update({ id_or_name: 'host', description: 'cold again' });
      kit.queries.count = 0;
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          service().resolution.resolve({ templates: [{ template: '{{system.host}}', context: 'text' }] }),
        ),
      );
      expect(results.every((r) => r.results[0] === 'api.example.com')).toBe(true);
      expect(kit.queries.count).toBe(1);
    });

    it('an update on one replica is used by the very next resolution on another', async () => {
      const a = kit;
      const b = await kit.replica();
      const input = { templates: [{ template: 'key={{system.api_key}}', context: 'text' as const }] };
      const warmed = await b.caller(CREDENTIALS.service).resolution.resolve(input); // b's cache path is warm now
      await a.caller(CREDENTIALS.admin).systemParameters.update({ id_or_name: 'api_key', value: 'rotated-by-a' });
      const next = await b.caller(CREDENTIALS.service).resolution.resolve(input);
      expect(next.results).toEqual(['key=rotated-by-a']);
      expect(next.references[0]?.version).toBe((warmed.references[0]?.version ?? 0) + 1);
      await b.caller(CREDENTIALS.admin).systemParameters.delete({ id_or_name: 'quote' });
      expect(
        (
          await appError(
            a
              .caller(CREDENTIALS.service)
              .resolution.resolve({ templates: [{ template: '{{system.quote}}', context: 'text' }] }),
          )
        ).code,
      ).toBe('unknown_system_parameters');
    });
  },
);

describe.each(dialects)('resolution with Redis unreachable on %s', (dialect) => {
  let kit: SecretsTestKit;
  beforeAll(async () => {
    kit = await createSecretsTestKit(dialect);
  });
  afterAll(() => kit.destroy());

  it('still reads, writes and resolves from the database', async () => {
    const down = createRedisCache('redis://127.0.0.1:1', { prefix: uniquePrefix(), commandTimeoutMs: 100 });
    try {
      const deps = { ...kit.deps, cache: down };
      await callerFor(deps, CREDENTIALS.admin).systemParameters.create({ name: 'survives', value: 'still-here' });
      await callerFor(deps, CREDENTIALS.admin).systemParameters.update({ id_or_name: 'survives', value: 'changed' });
      const out = await callerFor(deps, CREDENTIALS.service).resolution.resolve({
        templates: [{ template: '{{system.survives}}', context: 'text' }],
      });
      expect(out.results).toEqual(['changed']);
      expect(down.stats.failures).toBeGreaterThan(0);
    } finally {
      await down.close();
    }
  });
});
