/**
 * Work the REST layer does per request, counted (not timed): the gateway's own REST path builds no
 * Fetch `Request` (patches/trpc-to-openapi@3.3.0.patch — trpc-to-openapi otherwise builds one per
 * call only to expose an abort signal nobody reads), leaves Fastify's reply objects their own shape
 * (the same patch: the plugin redefined `statusCode` and bound ten methods on every reply), and
 * forwards one call per request to the service.
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
/** Own properties of a reply that never reached the REST plugin (set from the /healthz probe). */
const baseReplyKeys = new Set<string>();
const ownReplyKeys: string[][] = [];

beforeAll(async () => {
  server = await createServer({
    identity: createIdentityClient(nowhere, ''),
    catalog: { runbooks: { list: { query: list } } } as unknown as CatalogClient,
    secrets: createSecretsClient(nowhere, ''),
    publicUrl: 'http://127.0.0.1:3000',
    logger: createLogger('gateway', 'silent'),
  });
  server.app.addHook('onResponse', async (_req, reply) => {
    ownReplyKeys.push(Object.getOwnPropertyNames(reply).filter((k) => !baseReplyKeys.has(k)));
  });
  await server.app.ready();
  const probe = await server.app.inject({ method: 'GET', url: '/healthz' });
  expect(probe.statusCode).toBe(200);
  for (const k of ownReplyKeys.pop() ?? []) baseReplyKeys.add(k);
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
    expect(ownReplyKeys).toEqual([[], [], []]);
    expect(list).toHaveBeenCalledTimes(3);
    expect(list.mock.calls.map(([input]) => input.page)).toEqual([
      { number: 2, size: 10 },
      { number: 2, size: 20 },
      { number: 2, size: 30 },
    ]);
  });
});
