/**
 * For the authentication-cost benchmark only: catalog's real server and router on the same
 * database, with authentication replaced by a constant principal (a global developer) — "the same
 * request with authentication disabled". Never part of the product: it lives in bench/ and imports
 * catalog's build output by path. Env: PORT, CATALOG_DB (SQLite file) or CATALOG_MYSQL_URL.
 */
import { join, resolve } from 'node:path';
import { createDb } from '@runbook/db';

const dist = resolve(import.meta.dirname, '../../apps/catalog/dist');
const [{ createServer }, { defaultOrchestrationConfig }, { unavailableTemplateService }] = await Promise.all([
  import(join(dist, 'server.js')),
  import(join(dist, 'deps.js')),
  import(join(dist, 'secrets-port.js')),
]);

const principal = { kind: 'user', user_id: '1', token_id: '1', roles: [{ role: 'developer', workspace_id: null }] };
const silent = {
  level: 'silent',
  fatal() {},
  error() {},
  warn() {},
  info() {},
  debug() {},
  trace() {},
  child: () => silent,
};
const db = createDb(
  process.env.CATALOG_MYSQL_URL
    ? { dialect: 'mysql', url: process.env.CATALOG_MYSQL_URL }
    : { dialect: 'sqlite', file: process.env.CATALOG_DB },
);
const server = await createServer({
  db,
  authenticate: async () => principal,
  directory: { findMissing: async () => [], teamsOfUser: async () => [] },
  logger: silent,
  now: Date.now,
  secrets: unavailableTemplateService,
  fetch: globalThis.fetch,
  orchestration: defaultOrchestrationConfig,
  jobsQueued: () => {},
});
await server.start({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.send?.('ready');
process.on('SIGTERM', async () => {
  await server.stop();
  process.exit(0);
});
