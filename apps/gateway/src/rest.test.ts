/**
 * Work the REST layer does per request, counted (not timed): the gateway's own REST path builds no
 * Fetch `Request` (patches/trpc-to-openapi@3.3.0.patch — trpc-to-openapi otherwise builds one per
 * call only to expose an abort signal nobody reads) and forwards one call per request to the service.
 */
import type { CatalogClient } from '@runbook/catalog/client';
import { createIdentityClient } from '@runbook/identity/client';
import { createLogger, type ServiceServer } from '@runbook/rpc';
import { createSecretsClient } from '@runbook/secrets/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from './server.js';

const nowhere = 'http://127.0.0.1:9';
const list = vi.fn(async (input: { page: { number: number; size: number } }) => ({
  items: [],
  number: input.page.number,
  size: input.page.size,
  total: 0,
  next_cursor: null,
}));
let server: ServiceServer;

beforeAll(async () => {
  server = await createServer({
    identity: createIdentityClient(nowhere, ''),
    catalog: { runbooks: { list: { query: list } } } as unknown as CatalogClient,
    secrets: createSecretsClient(nowhere, ''),
    publicUrl: 'http://127.0.0.1:3000',
    logger: createLogger('gateway', 'silent'),
  });
  await server.app.ready();
});
afterAll(() => server?.stop());

describe('REST request path', () => {
  it('builds no Fetch Request and makes one service call per request, with coerced query parameters', async () => {
    const FetchRequest = globalThis.Request;
    let built = 0;
    globalThis.Request = class extends FetchRequest {
      constructor(...args: ConstructorParameters<typeof FetchRequest>) {
        super(...args);
        built++;
      }
    };
    try {
      for (const size of [10, 20, 30]) {
        const res = await server.app.inject({
          method: 'GET',
          url: `/core/runbooks?page[size]=${size}&page[number]=2`,
          headers: { authorization: 'Bearer rbt_example' },
        });
        expect(res.statusCode).toBe(200);
        expect(res.json().meta.page).toMatchObject({ number: 2, size });
      }
    } finally {
      globalThis.Request = FetchRequest;
    }
    expect(built).toBe(0);
    expect(list).toHaveBeenCalledTimes(3);
    expect(list.mock.calls.map(([input]) => input.page)).toEqual([
      { number: 2, size: 10 },
      { number: 2, size: 20 },
      { number: 2, size: 30 },
    ]);
  });
});
