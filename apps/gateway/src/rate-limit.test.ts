/**
 * Per-IP limits and `TRUST_PROXY`: behind a trusted proxy each client address has its own bucket;
 * without one, `X-Forwarded-For` is ignored (a client cannot pick its own bucket by sending it).
 * Requests carry no token, so they are refused with 401 before any service is called.
 */
import { createCatalogClient } from '@runbook/catalog/client';
import { createIdentityClient } from '@runbook/identity/client';
import { createLogger, type ServiceServer } from '@runbook/rpc';
import { createSecretsClient } from '@runbook/secrets/client';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayEnvSchema } from './env.js';
import { createServer } from './server.js';

const nowhere = 'http://127.0.0.1:9';
let server: ServiceServer | undefined;
afterEach(() => server?.stop());

async function gateway(trustProxy?: boolean | number | string) {
  server = await createServer(
    {
      identity: createIdentityClient(nowhere, ''),
      catalog: createCatalogClient(nowhere),
      secrets: createSecretsClient(nowhere, ''),
      publicUrl: 'http://127.0.0.1:3000',
      logger: createLogger('gateway', 'silent'),
      rateLimit: { perTokenPerMinute: 100, perIpPerMinute: 1 },
    },
    trustProxy === undefined ? {} : { trustProxy },
  );
  return server;
}

const fromClient = (s: ServiceServer, client: string) =>
  s.app.inject({ method: 'GET', url: '/core/runbooks', headers: { 'x-forwarded-for': client } });

describe('per-IP rate limits and TRUST_PROXY', () => {
  it.each([['an address', '127.0.0.1'] as const, ['a hop count', 1] as const])(
    'gives each forwarded client its own bucket behind a proxy trusted by %s',
    async (_how, trustProxy) => {
      const s = await gateway(trustProxy);
      expect((await fromClient(s, '203.0.113.7')).statusCode).toBe(401);
      expect((await fromClient(s, '203.0.113.7')).statusCode).toBe(429);
      expect((await fromClient(s, '198.51.100.2')).statusCode).toBe(401);
    },
  );

  it('ignores X-Forwarded-For without a trusted proxy (one bucket: the peer)', async () => {
    const s = await gateway();
    expect((await fromClient(s, '203.0.113.7')).statusCode).toBe(401);
    expect((await fromClient(s, '198.51.100.2')).statusCode).toBe(429);
  });

  it('parses TRUST_PROXY: unset/false, true, a hop count, or addresses', () => {
    const base = { IDENTITY_URL: nowhere, CATALOG_URL: nowhere, SECRETS_URL: nowhere };
    const parse = (TRUST_PROXY?: string) => gatewayEnvSchema.parse({ ...base, TRUST_PROXY }).TRUST_PROXY;
    expect(parse()).toBe(false);
    expect(parse('false')).toBe(false);
    expect(parse('true')).toBe(true);
    expect(parse('2')).toBe(2);
    expect(parse('10.0.0.0/8, 127.0.0.1')).toBe('10.0.0.0/8, 127.0.0.1');
  });
});
