/**
 * `/docs` as the real gateway serves it (createServer, REST catch-all included): the page, its
 * initializer and the Swagger UI assets come from the gateway itself with the security headers, and
 * nothing else of swagger-ui-dist is reachable. Service clients point at a closed port: no request
 * here reaches a service.
 */
import { createCatalogClient } from '@runbook/catalog/client';
import { createIdentityClient } from '@runbook/identity/client';
import { createLogger, type ServiceServer } from '@runbook/rpc';
import { createSecretsClient } from '@runbook/secrets/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_SECURITY_HEADERS } from './docs.js';
import { buildOpenApiDocument } from './openapi.js';
import { createServer } from './server.js';

const nowhere = 'http://127.0.0.1:9';
let server: ServiceServer;

beforeAll(async () => {
  server = await createServer({
    identity: createIdentityClient(nowhere, ''),
    catalog: createCatalogClient(nowhere),
    secrets: createSecretsClient(nowhere, ''),
    publicUrl: 'http://127.0.0.1:3000',
    logger: createLogger('gateway', 'silent'),
  });
  await server.app.ready();
});
afterAll(() => server?.stop());

const get = (url: string) => server.app.inject({ method: 'GET', url });

describe('/docs', () => {
  it('redirects /docs to docs/ (relative, so relative asset URLs and proxy prefixes work)', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('docs/');
  });

  it('serves the page with the live-data warning, loading only its own assets', async () => {
    const res = await get('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Try calls act on real data');
    const urls = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url, url).not.toMatch(/^(?:[a-z]+:)?\/\//i);
    expect(res.body).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });

  it.each([
    ['/docs/docs.js', /javascript/],
    ['/docs/docs.css', /text\/css/],
    ['/docs/vendor/swagger-ui-bundle.js', /javascript/],
    ['/docs/vendor/swagger-ui.css', /text\/css/],
    ['/docs/vendor/favicon-32x32.png', /image\/png/],
  ])('serves %s itself, not the REST catch-all', async (url, type) => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.body.length).toBeGreaterThan(100);
  });

  it('sets the security headers on the page and its assets', async () => {
    for (const url of ['/docs/', '/docs/docs.js', '/docs/vendor/swagger-ui-bundle.js']) {
      const res = await get(url);
      for (const [name, value] of Object.entries(DOCS_SECURITY_HEADERS)) expect(res.headers[name], name).toBe(value);
    }
    const csp = DOCS_SECURITY_HEADERS['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-');
  });

  it.each([
    '/docs/vendor/swagger-initializer.js',
    '/docs/vendor/package.json',
    '/docs/vendor/index.html',
    '/docs/vendor/../package.json',
    '/docs/nope.js',
  ])('answers 404 for %s (only the page and the listed Swagger UI files are served)', async (url) => {
    const res = await get(url);
    expect([403, 404]).toContain(res.statusCode);
  });

  it('leaves other paths to the REST catch-all (JSON error document)', async () => {
    const res = await get('/docsx');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ errors: [{ status: '404' }] });
  });
});

describe('the document /docs renders', () => {
  const doc = buildOpenApiDocument('http://127.0.0.1:3000');
  const resolve = (ref: string) =>
    ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);

  it('has no dangling $ref (Swagger UI would show it as "string")', () => {
    const refs = new Set<string>();
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.add(value);
          else walk(value);
        }
      }
    };
    walk(doc);
    expect(refs.size).toBeGreaterThan(0);
    for (const ref of refs) expect(resolve(ref), ref).toBeDefined();
  });

  it('documents the success status the gateway sends (201 create, 204 delete without a body)', () => {
    const item = (path: string) => doc.paths?.[path] as Record<string, { responses: Record<string, unknown> }>;
    expect(Object.keys(item('/core/workspaces').post?.responses ?? {})).toContain('201');
    expect(item('/core/workspaces').post?.responses['200']).toBeUndefined();
    expect(item('/core/runbooks/{id}').delete?.responses['204']).toEqual({ description: 'No content.' });
    expect(Object.keys(item('/core/runbooks').get?.responses ?? {})).toContain('200');
  });
});
