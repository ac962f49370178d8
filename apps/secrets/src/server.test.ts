import { testDialects } from '@runbook/db/testing';
import type { ServiceServer } from '@runbook/rpc';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretsClient } from './client.js';
import { createServer } from './server.js';
import { CREDENTIALS, createSecretsTestKit, type SecretsTestKit, testCaches } from './test-support.js';

describe.each(await testDialects())('secrets over HTTP on %s', (dialect) => {
  let kit: SecretsTestKit;
  let server: ServiceServer;
  let url: string;
  beforeAll(async () => {
    kit = await createSecretsTestKit(dialect);
    server = await createServer(kit.deps);
    url = await server.start({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    // `app.close()` rather than `stop()`: stop would also close the kit's database and cache.
    await server.app.close();
    await kit.destroy();
  });

  it('serves health and readiness ({database, cache})', async () => {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', service: 'secrets' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: true, cache: true } });
  });

  it('answers the typed client: writes with a forwarded user token, resolves with the service credential', async () => {
    const client = createSecretsClient(url, CREDENTIALS.service);
    const created = await client.systemParameters.create.mutate(
      { name: 'http_key', value: 'over-the-wire', secret: true },
      { context: { credential: CREDENTIALS.admin } },
    );
    expect(created).toMatchObject({ name: 'http_key', value: null, updated_by: '1' });
    const resolved = await client.resolution.resolve.mutate({
      templates: [{ template: 'Bearer {{system.http_key}}', context: 'header' }],
    });
    expect(resolved).toEqual({
      results: ['Bearer over-the-wire'],
      references: [{ name: 'http_key', version: 1 }],
      secret_values: ['over-the-wire'],
    });

    const asUser = await client.resolution.resolve
      .mutate(
        { templates: [{ template: '{{system.http_key}}', context: 'text' }] },
        { context: { credential: CREDENTIALS.admin } },
      )
      .catch((e: unknown) => e);
    expect(asUser).toBeInstanceOf(TRPCClientError);
    expect((asUser as TRPCClientError<never>).shape).toMatchObject({ errors: [{ status: '403', code: 'forbidden' }] });

    const missing = await client.resolution.resolve
      .mutate({ templates: [{ template: '{{system.nope_a}}{{system.nope_b}}', context: 'text' }] })
      .catch((e: unknown) => e);
    expect((missing as TRPCClientError<never>).shape).toMatchObject({
      errors: [{ status: '422', code: 'unknown_system_parameters', meta: { missing: ['nope_a', 'nope_b'] } }],
    });
    expect(JSON.stringify((missing as TRPCClientError<never>).shape)).not.toContain('over-the-wire');
  });
});

describe.each((await testCaches()).includes('redis') ? await testDialects() : [])(
  'two secrets instances sharing the database and Redis, over HTTP, on %s',
  (dialect) => {
    let kit: SecretsTestKit;
    const servers: ServiceServer[] = [];
    const urls: string[] = [];
    beforeAll(async () => {
      kit = await createSecretsTestKit(dialect, { cache: 'redis' });
      const other = await kit.replica();
      for (const deps of [kit.deps, other.deps]) {
        const server = await createServer(deps);
        servers.push(server);
        urls.push(await server.start({ port: 0, host: '127.0.0.1' }));
      }
    });
    afterAll(async () => {
      for (const server of servers) await server.app.close();
      await kit.destroy();
    });

    it('a write on one instance is used by the very next resolution on the other', async () => {
      const [a, b] = urls.map((url) => createSecretsClient(url, CREDENTIALS.service)) as [
        ReturnType<typeof createSecretsClient>,
        ReturnType<typeof createSecretsClient>,
      ];
      const asAdmin = { context: { credential: CREDENTIALS.admin } };
      const input = { templates: [{ template: 'Bearer {{system.shared_token}}', context: 'header' as const }] };
      await a.systemParameters.create.mutate({ name: 'shared_token', value: 'first' }, asAdmin);
      for (let round = 1; round <= 5; round++) {
        expect((await b.resolution.resolve.mutate(input)).results).toEqual([
          `Bearer ${round === 1 ? 'first' : `value-${round - 1}`}`,
        ]);
        expect((await b.resolution.resolve.mutate(input)).results).toHaveLength(1); // warm on b
        const writer = round % 2 === 0 ? b : a;
        await writer.systemParameters.update.mutate({ id_or_name: 'shared_token', value: `value-${round}` }, asAdmin);
        const reader = round % 2 === 0 ? a : b;
        expect((await reader.resolution.resolve.mutate(input)).results).toEqual([`Bearer value-${round}`]);
      }
      await b.systemParameters.delete.mutate({ id_or_name: 'shared_token' }, asAdmin);
      const gone = await a.resolution.resolve.mutate(input).catch((e: unknown) => e);
      expect((gone as TRPCClientError<never>).shape).toMatchObject({ errors: [{ code: 'unknown_system_parameters' }] });
    });
  },
);
