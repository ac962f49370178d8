/**
 * The API reference with Try at `/docs`: Swagger UI (from the `swagger-ui-dist` package) configured
 * from `/openapi.json`. Every asset is served by the gateway itself — no CDN, the page works on closed
 * networks — and the page runs under a Content-Security-Policy that allows scripts and styles from
 * this origin only.
 *
 * Routes (all GET/HEAD, registered before the REST catch-all can claim them — find-my-way prefers
 * these static prefixes over `/*`):
 * - `/docs` → 301 to `docs/` (relative, so a path prefix added by a reverse proxy survives), so the
 *   page's relative asset URLs resolve under `/docs/`;
 * - `/docs/` and `/docs/{docs.js,docs.css}` → `apps/gateway/static/` (the page and its initializer);
 * - `/docs/vendor/<file>` → the few files of `swagger-ui-dist` the page needs (nothing else of the
 *   package is reachable).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Files of `swagger-ui-dist` served under `/docs/vendor/`. */
const VENDOR_FILES = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png', '/favicon-16x16.png']);

/**
 * Security headers of every `/docs` response. Swagger UI needs no inline script or `eval`; it sets
 * inline styles only through the CSSOM (allowed by `style-src 'self'`) and its stylesheet embeds
 * `data:` SVG icons. `connect-src` also allows other http(s) origins because the Try base URL is
 * editable (a call to another origin still needs that origin's CORS consent).
 */
export const DOCS_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self' http: https:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** Where the page's own files live: `apps/gateway/static/`, next to both `src/` and `dist/`. */
export function docsStaticDir(): string {
  return fileURLToPath(new URL('../static/', import.meta.url));
}

/** The installed `swagger-ui-dist` folder. */
export function swaggerUiDistDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * Registers `/docs` on `app` (see the module comment).
 * @throws {Error} at registration when the static folder or `swagger-ui-dist` is missing, so a broken
 * deployment fails at start rather than serving a blank page.
 */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  const staticDir = docsStaticDir();
  const vendorDir = swaggerUiDistDir();
  for (const file of [`${staticDir}index.html`, `${vendorDir}/swagger-ui-bundle.js`]) {
    if (!existsSync(file)) throw new Error(`/docs cannot be served: ${file} is missing`);
  }

  await app.register(async (docs) => {
    docs.addHook('onRequest', async (_req, reply) => {
      reply.headers(DOCS_SECURITY_HEADERS);
    });

    docs.get('/docs', (_req, reply) => reply.redirect('docs/', 301));

    await docs.register(fastifyStatic, {
      root: staticDir,
      prefix: '/docs/',
      wildcard: false,
      decorateReply: false,
      cacheControl: true,
      maxAge: 0,
    });

    await docs.register(fastifyStatic, {
      root: vendorDir,
      prefix: '/docs/vendor/',
      decorateReply: false,
      allowedPath: (pathname) => VENDOR_FILES.has(pathname),
      // The file names are not versioned: revalidate (ETag) after an hour so an upgrade shows up.
      maxAge: 3_600_000,
    });
  });
}
