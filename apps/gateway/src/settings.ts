/**
 * The settings UI at `/settings`: the React app built by `apps/web` (`vite build` → `apps/web/dist`,
 * base `/settings/`), served by the gateway from that folder — found relative to this module
 * (`apps/gateway/{src,dist}/` → `apps/web/dist/`). Registration fails when the build is missing,
 * so a broken deployment fails at start rather than serving a blank page.
 *
 * Routes (GET/HEAD): `/settings` → 301 `settings/`; built files under `/settings/` (hashed assets
 * under `/settings/assets/` are cached for a year, `index.html` is revalidated); any other
 * `/settings/*` path (client-side routes such as `/settings/tokens`) → `index.html`. The sign-in
 * routes under `/settings/api/` are in `session.ts`. Every response carries a Content-Security-Policy
 * allowing this origin only (no CDN, no inline script), like `/docs`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Security headers of every `/settings` page and asset. */
export const SETTINGS_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** Where the built web app lives: `apps/web/dist/`. */
export function webDistDir(): string {
  return fileURLToPath(new URL('../../web/dist/', import.meta.url));
}

/**
 * Registers `/settings` on `app` (see the module comment).
 * @throws {Error} at registration when `apps/web/dist/index.html` is missing (run the workspace build).
 */
export async function registerSettings(app: FastifyInstance): Promise<void> {
  const root = webDistDir();
  const indexFile = `${root}index.html`;
  if (!existsSync(indexFile)) {
    throw new Error(`/settings cannot be served: ${indexFile} is missing (build apps/web: \`pnpm build\`)`);
  }
  const indexHtml = readFileSync(indexFile, 'utf8');

  await app.register(async (settings) => {
    settings.addHook('onRequest', async (req, reply) => {
      if (!req.url.startsWith('/settings/api/')) reply.headers(SETTINGS_SECURITY_HEADERS);
    });

    settings.get('/settings', (_req, reply) => reply.redirect('settings/', 301));

    await settings.register(fastifyStatic, {
      root,
      prefix: '/settings/',
      wildcard: false,
      index: false,
      decorateReply: false,
      setHeaders: (res, path) => {
        res.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });

    const sendIndex = (_req: FastifyRequest, reply: FastifyReply) =>
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(indexHtml);
    settings.get('/settings/', sendIndex);
    settings.get('/settings/*', sendIndex);
  });
}
