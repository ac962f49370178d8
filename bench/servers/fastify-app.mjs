/**
 * Baseline 2 — "what a user would build instead": one Fastify app with a hand-written
 * `GET /core/runbooks` doing the same work as the platform's request path in one process: the
 * bearer token checked against the same kind of cache (in-process, 1 s TTL, SHA-256 key) backed by
 * identity's tables, the same SQL for the page (via the same `paginate`), and the same JSON:API
 * document. With RATE_LIMIT=1 it also limits requests per bearer token as the gateway does
 * (@fastify/rate-limit, keyed by the token's SHA-256, one-minute window, a limit nobody reaches),
 * with its counters in Redis when REDIS_URL is set — the same store, and the same round trip, as
 * the gateway's limiter on MySQL + Redis; in process memory otherwise.
 * Env: PORT, IDENTITY_DB / CATALOG_DB (SQLite file) or IDENTITY_MYSQL_URL / CATALOG_MYSQL_URL,
 * RATE_LIMIT, REDIS_URL, RATE_LIMIT_REDIS_PREFIX.
 */
import { createHash } from 'node:crypto';
import fastifyRateLimit from '@fastify/rate-limit';
import { createMemoryCache, createRedisClient } from '@runbook/cache';
import { createDb, paginate } from '@runbook/db';
import Fastify from 'fastify';

const config = (name) =>
  process.env[`${name}_MYSQL_URL`]
    ? { dialect: 'mysql', url: process.env[`${name}_MYSQL_URL`] }
    : { dialect: 'sqlite', file: process.env[`${name}_DB`] };
const identity = createDb(config('IDENTITY'));
const catalog = createDb(config('CATALOG'));
const cache = createMemoryCache({ prefix: 'baseline:' });
const publicUrl = `http://127.0.0.1:${process.env.PORT}`;

async function authenticate(header) {
  const match = /^Bearer (\S+)$/.exec(header ?? '');
  if (!match) return null;
  const key = createHash('sha256').update(match[1]).digest('hex');
  const cached = await cache.get(key);
  if (cached) return JSON.parse(cached);
  const row = await identity
    .selectFrom('user_app_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.user_id', 't.expires_at', 't.revoked_at', 'u.archived'])
    .where('t.token_hash', '=', key)
    .executeTakeFirst();
  if (
    !row ||
    row.revoked_at !== null ||
    row.archived ||
    (row.expires_at !== null && Number(row.expires_at) <= Date.now())
  )
    return null;
  const roles = await identity
    .selectFrom('role_assignments')
    .select(['role'])
    .where('user_id', '=', row.user_id)
    .execute();
  const principal = { user_id: String(row.user_id), roles: roles.map((r) => r.role) };
  await cache.set(key, JSON.stringify(principal), 1000);
  return principal;
}

const iso = (ms) => new Date(Number(ms)).toISOString();
const app = Fastify({ logger: false });
if (process.env.RATE_LIMIT === '1') {
  const redis = process.env.REDIS_URL ? createRedisClient(process.env.REDIS_URL) : undefined;
  await app.register(fastifyRateLimit, {
    max: 1_000_000_000,
    timeWindow: 60_000,
    skipOnError: true,
    keyGenerator: (req) =>
      `t:${createHash('sha256')
        .update(req.headers.authorization ?? '')
        .digest('base64url')}`,
    ...(redis ? { redis, nameSpace: process.env.RATE_LIMIT_REDIS_PREFIX ?? 'baseline:rate-limit:' } : {}),
  });
  if (redis) app.addHook('onClose', async () => void redis.disconnect());
}
app.get('/core/runbooks', async (req, reply) => {
  const principal = await authenticate(req.headers.authorization);
  if (!principal)
    return reply.code(401).send({
      errors: [
        { status: '401', code: 'unauthorized', title: 'Unauthorized', detail: 'A valid bearer token is required.' },
      ],
    });
  if (!principal.roles.includes('developer'))
    return reply
      .code(403)
      .send({ errors: [{ status: '403', code: 'forbidden', title: 'Forbidden', detail: 'developer role required' }] });
  const size = Number(req.query['page[size]'] ?? 25);
  const number = Number(req.query['page[number]'] ?? 1);
  let query = catalog.selectFrom('runbooks').selectAll();
  if (req.query.workspace_id) query = query.where('workspace_id', '=', Number(req.query.workspace_id));
  const page = await paginate(
    query,
    { column: 'runbooks.id', key: 'id', direction: 'asc', idColumn: 'runbooks.id', idKey: 'id' },
    { number, size, after: req.query['page[after]'] },
  );
  const totalPages = Math.max(1, Math.ceil(page.total / size));
  const link = (extra) =>
    `${publicUrl}/core/runbooks?${new URLSearchParams({ ...(req.query.workspace_id ? { workspace_id: req.query.workspace_id } : {}), ...extra, 'page[size]': String(size) }).toString().replaceAll('%5B', '[').replaceAll('%5D', ']')}`;
  return {
    data: page.items.map((r) => ({
      id: String(r.id),
      type: 'runbook',
      attributes: {
        name: r.name,
        description: r.description,
        stage: r.stage,
        run_type: r.run_type,
        is_template: Boolean(r.is_template),
        created_at: iso(r.created_at),
        updated_at: iso(r.updated_at),
      },
      relationships: { workspace: { data: { id: String(r.workspace_id), type: 'workspace' } } },
    })),
    meta: { page: { number: page.number, size, total: page.total, total_pages: totalPages } },
    links: {
      self: link({ 'page[number]': String(page.number) }),
      first: link({ 'page[number]': '1' }),
      last: link({ 'page[number]': String(totalPages) }),
      ...(page.next_cursor ? { next: link({ 'page[after]': page.next_cursor }) } : {}),
    },
  };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.send?.('ready');
process.on('SIGTERM', async () => {
  await app.close();
  await identity.destroy();
  await catalog.destroy();
  process.exit(0);
});
