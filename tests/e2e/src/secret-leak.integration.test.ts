/**
 * System parameters end to end, with a leak scan. The four real services run as processes (logs
 * captured at `trace` level); the suite drives system parameters through the gateway's REST API
 * (and the secrets service's tRPC endpoint for what is internal: `resolve`, `validate`) with
 * distinctive secret values — creates, updates, conditional updates (If-Match → 412,
 * `meta.expected_version` → 409), previews, lists, gets, the audit trail, the size and count
 * limits (413 / 422) and many error paths — then stops the platform and scans, for the plaintext
 * of every secret value and its encodings:
 *
 * - every HTTP response body (and header) the suite received, except the results of the internal
 *   `resolution.resolve` (the one place plaintext is meant to go — checked to hold it, so the
 *   scanner provably finds what it looks for);
 * - everything the services wrote to stdout/stderr;
 * - every row of every table of the three databases (SQLite files, or MySQL databases), and every
 *   byte of every file in the data directory (SQLite files with their WAL, keys, credentials);
 * - every Redis key and value under the secrets service's cache prefix (MySQL + Redis leg).
 *
 * Legs: the embedded default (SQLite, in-process caches), and MySQL + Redis when reachable
 * (required when RUNBOOK_REQUIRE_MYSQL=1 / RUNBOOK_REQUIRE_REDIS=1).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, type Dialect, sql } from '@runbook/db';
import { createEmptyMysqlDatabase, testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error — plain ESM script without type declarations
import { startPlatform } from '../../../scripts/start-local.mjs';
import { freePort } from './support/platform.js';
import { redisAnswers, redisDeletePrefix, redisDump } from './support/redis.js';

interface Platform {
  gatewayUrl: string;
  urls: Record<'identity' | 'secrets' | 'catalog' | 'gateway', string>;
  adminToken: string;
  stop(): Promise<void>;
}

/** One HTTP exchange as the suite saw it. */
interface Exchange {
  label: string;
  status: number;
  headers: string;
  body: string;
  /** The result of the internal `resolution.resolve`: allowed (and expected) to hold plaintext. */
  plaintextAllowed: boolean;
}

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const dialects = await testDialects();
const redisUp = process.env.RUNBOOK_REQUIRE_REDIS === '1' || (await redisAnswers(redisUrl));
const legs: Array<{ dialect: Dialect; redis: boolean }> = dialects.map((dialect) => ({
  dialect,
  redis: dialect === 'mysql' && redisUp,
}));

/** The forms a leaked value could take: as is, JSON-escaped, URL-encoded, base64, base64url, hex. */
function formsOf(plaintext: string): string[] {
  const bytes = Buffer.from(plaintext, 'utf8');
  return [
    ...new Set([
      plaintext,
      JSON.stringify(plaintext).slice(1, -1),
      encodeURIComponent(plaintext),
      bytes.toString('base64'),
      bytes.toString('base64url'),
      bytes.toString('hex'),
    ]),
  ];
}

/** Every `[form, plaintext]` of `secrets` found in `text`. */
function leaksIn(text: string, secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const secret of secrets)
    for (const form of formsOf(secret))
      if (text.includes(form)) found.push(`${JSON.stringify(form)} (of ${JSON.stringify(secret)})`);
  return found;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/** Every row of every table of a database, as JSON text (one entry per table). */
async function dumpDatabase(config: { dialect: 'sqlite'; file: string } | { dialect: 'mysql'; url: string }) {
  const db = createDb<Record<string, Record<string, unknown>>>(config);
  try {
    const tables =
      config.dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map(
            (r) => r.name,
          )
        : (await sql<Record<string, string>>`show tables`.execute(db)).rows.map((r) => Object.values(r)[0] as string);
    const dump: Record<string, string> = {};
    for (const table of tables) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
      dump[table] = JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    }
    return dump;
  } finally {
    await db.destroy();
  }
}

describe.each(legs)(
  'system parameters end to end, and a scan for leaked secrets ($dialect, redis: $redis)',
  ({ dialect, redis }) => {
    let platform: Platform;
    let dataDir: string;
    const mysqlDatabases: Record<string, { url: string; drop(): Promise<void> }> = {};
    const cachePrefix = `rbe2e:${randomBytes(6).toString('hex')}:`;
    const logs: Record<string, string[]> = {};
    const exchanges: Exchange[] = [];
    const tag = randomBytes(6).toString('hex');
    /** Every secret plaintext the suite ever sent (valid or not). */
    const secrets: string[] = [];
    const secret = (label: string) => {
      const value = `${label}-${tag}`;
      secrets.push(value);
      return value;
    };
    const MAX_PARAMETERS = 40;
    let base: string;
    let token: string;
    let serviceCredential: string;

    async function call(
      label: string,
      url: string,
      init: { method: string; body?: unknown; token?: string | null; headers?: Record<string, string> },
      plaintextAllowed = false,
    ) {
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      const bearer = init.token === undefined ? token : init.token;
      if (bearer) headers.authorization = `Bearer ${bearer}`;
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(url, {
        method: init.method,
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const text = await res.text();
      exchanges.push({
        label,
        status: res.status,
        headers: JSON.stringify([...res.headers.entries()]),
        body: text,
        plaintextAllowed,
      });
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
    }
    const api = (
      method: string,
      path: string,
      body?: unknown,
      options: { token?: string; headers?: Record<string, string> } = {},
    ) => call(`${method} ${path}`, `${base}${path}`, { method, body, ...options });
    /** A tRPC mutation on the secrets service itself (`resolution.*` is not published as REST). */
    const secretsRpc = (procedure: string, input: unknown, credential: string, plaintextAllowed = false) =>
      call(
        `secrets ${procedure}`,
        `${platform.urls.secrets}/trpc/${procedure}`,
        { method: 'POST', body: input, token: credential },
        plaintextAllowed,
      );
    const paramDoc = (attributes: Record<string, unknown>) => ({ data: { type: 'system_parameter', attributes } });

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'runbook-leak-'));
      const serviceEnv: Record<string, Record<string, string>> = {
        secrets: { SECRETS_MAX_PARAMETERS: String(MAX_PARAMETERS), SECRETS_CACHE_PREFIX: cachePrefix },
      };
      if (dialect === 'mysql') {
        for (const service of ['identity', 'secrets', 'catalog']) {
          mysqlDatabases[service] = await createEmptyMysqlDatabase();
          serviceEnv[service] = {
            ...serviceEnv[service],
            MYSQL_URL: (mysqlDatabases[service] as { url: string }).url,
            ...(redis ? { REDIS_URL: redisUrl } : {}),
          };
        }
      }
      platform = await startPlatform({
        dataDir,
        ports: {
          gateway: await freePort(),
          identity: await freePort(),
          secrets: await freePort(),
          catalog: await freePort(),
        },
        serviceEnv,
        env: { LOG_LEVEL: 'trace' },
        onOutput: (service: string, text: string) => {
          logs[service] ??= [];
          (logs[service] as string[]).push(text);
          if (process.env.E2E_LOGS) process.stdout.write(text);
        },
      });
      base = platform.gatewayUrl;
      token = platform.adminToken;
      serviceCredential = (await readFile(join(dataDir, 'credentials', 'catalog'), 'utf8')).trim();
    });

    afterAll(async () => {
      await platform?.stop();
      for (const database of Object.values(mysqlDatabases)) await database.drop();
      if (redis) await redisDeletePrefix(redisUrl, cachePrefix);
      await rm(dataDir, { recursive: true, force: true });
    });

    it('creates, reads, lists and updates parameters; secret values never come back', async () => {
      const alpha = secret('sk_live_ALPHA');
      const created = await api('POST', '/core/system_parameters', paramDoc({ name: 'leak_alpha', value: alpha }));
      expect(created.status).toBe(201);
      expect(created.body.data.attributes).toMatchObject({ name: 'leak_alpha', secret: true, value: null, version: 1 });
      const bravo = secret('p@ss"w\\ord {{system.leak_alpha}} \u2713 BRAVO');
      expect(
        (await api('POST', '/core/system_parameters', paramDoc({ name: 'leak_bravo', value: bravo }))).status,
      ).toBe(201);
      const charlie = secret('CHARLIE\r\nX-Injected: yes');
      expect(
        (await api('POST', '/core/system_parameters', paramDoc({ name: 'leak_charlie', value: charlie }))).status,
      ).toBe(201);
      const control = `public-NOVEMBER-${tag}`; // not secret: must be readable
      expect(
        (
          await api(
            'POST',
            '/core/system_parameters',
            paramDoc({ name: 'leak_public', value: control, secret: false, description: 'not a secret' }),
          )
        ).body.data.attributes.value,
      ).toBe(control);

      for (const path of [
        '/core/system_parameters/leak_alpha',
        `/core/system_parameters/${created.body.data.id}`,
        '/core/system_parameters?name_prefix=leak_&page[size]=2',
        '/core/system_parameters?page[size]=100',
      ]) {
        expect((await api('GET', path)).status).toBe(200);
      }
      const listed = await api('GET', '/core/system_parameters?name_prefix=leak_');
      expect(listed.body.data.map((d: { attributes: { value: string | null } }) => d.attributes.value)).toEqual([
        null,
        null,
        null,
        control,
      ]);

      const delta = secret('sk_live_DELTA_rotated');
      const updated = await api('PATCH', '/core/system_parameters/leak_alpha', {
        ...paramDoc({ value: delta, description: 'rotated' }),
        meta: { expected_version: 1 },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.data.attributes).toMatchObject({ version: 2, value: null, description: 'rotated' });
      // An omitted value is kept.
      expect(
        (await api('PATCH', '/core/system_parameters/leak_alpha', paramDoc({ display_name: 'Alpha key' }))).body.data
          .attributes.version,
      ).toBe(3);
    });

    it('supports If-Match ("<version>") with 412 and meta.expected_version with 409 on a stale version', async () => {
      const current = (await api('GET', '/core/system_parameters/leak_bravo')).body.data.attributes.version as number;
      const ok = await api('PATCH', '/core/system_parameters/leak_bravo', paramDoc({ description: 'conditional' }), {
        headers: { 'if-match': `"${current}"` },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.data.attributes.version).toBe(current + 1);

      const juliet = secret('JULIET');
      const stale = await api('PATCH', '/core/system_parameters/leak_bravo', paramDoc({ value: juliet }), {
        headers: { 'if-match': `"${current}"` },
      });
      expect(stale.status).toBe(412);
      expect(stale.body.errors[0]).toMatchObject({
        status: '412',
        code: 'precondition_failed',
        source: { header: 'If-Match' },
        meta: { expected_version: current, current_version: current + 1 },
      });

      const kilo = secret('KILO');
      const conflict = await api('PATCH', '/core/system_parameters/leak_bravo', {
        ...paramDoc({ value: kilo }),
        meta: { expected_version: current },
      });
      expect(conflict.status).toBe(409);
      expect(conflict.body.errors[0]).toMatchObject({
        code: 'version_conflict',
        meta: { expected_version: current, current_version: current + 1 },
      });

      for (const header of ['3', 'W/"3"', '"a"', '"1", "2"']) {
        const bad = await api('PATCH', '/core/system_parameters/leak_bravo', paramDoc({ value: kilo }), {
          headers: { 'if-match': header },
        });
        expect([bad.status, bad.body.errors[0].source], header).toEqual([400, { header: 'If-Match' }]);
      }
      const any = await api('PATCH', '/core/system_parameters/leak_bravo', paramDoc({ description: 'any' }), {
        headers: { 'if-match': '*' },
      });
      expect(any.body.data.attributes.version).toBe(current + 2);
      expect((await api('GET', '/core/system_parameters/leak_bravo')).body.data.attributes.description).toBe('any');
    });

    it('answers error paths without echoing values: 403, 409, 413, 422, 404', async () => {
      // A developer (no integrations_admin) may read but not write.
      const user = await api('POST', '/core/users', {
        data: {
          type: 'user',
          attributes: {
            first_name: 'Dev',
            last_name: 'Leak',
            email: `dev-leak-${tag}@example.com`,
            roles: [{ role: 'developer', workspace_id: null }],
          },
        },
      });
      expect(user.status).toBe(201);
      const issued = await api('POST', `/core/users/${user.body.data.id}/user_app_tokens`, {
        data: { type: 'user_app_token', attributes: { label: 'leak test' } },
      });
      const devToken = issued.body.meta.token as string;
      const mike = secret('MIKE');
      expect(
        (
          await api('POST', '/core/system_parameters', paramDoc({ name: 'leak_mike', value: mike }), {
            token: devToken,
          })
        ).status,
      ).toBe(403);
      expect(
        (await api('PATCH', '/core/system_parameters/leak_alpha', paramDoc({ value: mike }), { token: devToken }))
          .status,
      ).toBe(403);
      expect((await api('GET', '/core/system_parameters/leak_alpha', undefined, { token: devToken })).status).toBe(200);
      expect((await api('GET', '/core/system_parameter_audit_events', undefined, { token: devToken })).status).toBe(
        403,
      );

      const foxtrot = secret('FOXTROT');
      const taken = await api('POST', '/core/system_parameters', paramDoc({ name: 'leak_alpha', value: foxtrot }));
      expect([taken.status, taken.body.errors[0].code]).toEqual([409, 'name_taken']);

      const echo = secret('ECHO');
      const tooLarge = await api(
        'POST',
        '/core/system_parameters',
        paramDoc({ name: 'leak_echo', value: `${echo}|`.repeat(Math.ceil(16_385 / (echo.length + 1))) }),
      );
      expect([tooLarge.status, tooLarge.body.errors[0].code]).toEqual([413, 'value_too_large']);
      expect(tooLarge.body.errors[0].source).toEqual({ pointer: '/data/attributes/value' });
      const tooLargeUpdate = await api(
        'PATCH',
        '/core/system_parameters/leak_alpha',
        paramDoc({ value: `${echo}|`.repeat(Math.ceil(16_385 / (echo.length + 1))) }),
      );
      expect(tooLargeUpdate.status).toBe(413);

      const golf = secret('GOLF');
      for (const attributes of [
        { name: 'Bad-Name', value: golf },
        { name: 'leak_golf', value: golf, secret: 'false' },
        { name: 'leak_golf', value: golf, display_name: '' },
      ]) {
        const invalid = await api('POST', '/core/system_parameters', paramDoc(attributes));
        expect(invalid.status, JSON.stringify(attributes)).toBe(422);
      }
      const immutable = await api(
        'PATCH',
        '/core/system_parameters/leak_alpha',
        paramDoc({ name: 'other', value: golf }),
      );
      expect(immutable.status).toBe(422);
      expect((await api('PATCH', '/core/system_parameters/leak_nope', paramDoc({ value: golf }))).status).toBe(404);
      expect((await api('GET', '/core/system_parameters/leak_nope')).status).toBe(404);
    });

    it('previews with secrets masked, validates templates, and resolves plaintext for services only', async () => {
      const preview = (template: string, context: string, extra: Record<string, unknown> = {}) =>
        api('POST', '/core/system_parameters/preview', { data: { template, context, ...extra } });
      const masked = await preview('{{system.leak_public}} {{ system.leak_alpha }} {{system.leak_bravo}}', 'text');
      expect(masked.body.data.result).toBe(`public-NOVEMBER-${tag} •••• ••••`);
      for (const context of ['text', 'header', 'json', 'url']) {
        const template =
          context === 'json'
            ? '{"a": "{{system.leak_alpha}}", "{{system.leak_bravo}}": "{{system.leak_charlie}}"}'
            : context === 'url'
              ? 'https://x.example/{{system.leak_alpha}}?c={{system.leak_charlie}}'
              : 'Bearer {{system.leak_alpha}}{{system.leak_charlie}}';
        const out = await preview(template, context);
        expect(out.status, context).toBe(200);
        expect(out.body.data.missing).toEqual([]);
      }
      expect((await preview('{{system.leak_alpha}} {{system.leak_missing}}', 'text')).body.data).toMatchObject({
        result: null,
        missing: ['leak_missing'],
      });
      expect((await preview('{{system.Bad}}', 'text')).status).toBe(422);
      expect(
        (await preview('{{system.leak_alpha}}', 'text', { field_type: 'temporary_credentials' })).body.errors[0].code,
      ).toBe('temporary_credentials_not_allowed');

      const validated = await secretsRpc(
        'resolution.validate',
        {
          templates: [
            { template: 'Bearer {{system.leak_alpha}}', context: 'header', pointer: '/headers/0' },
            { template: '{{system.leak_missing}}', context: 'url', pointer: '/url' },
            { template: '{{system.leak_alpha}}', context: 'text', field_type: 'temporary_credentials' },
          ],
        },
        token,
      );
      expect(validated.status).toBe(200);
      expect(validated.body.result.data).toMatchObject({ valid: false, missing: ['leak_missing'] });

      const resolved = await secretsRpc(
        'resolution.resolve',
        {
          templates: [
            { template: 'Bearer {{system.leak_alpha}}', context: 'header' },
            { template: '{"k": "{{system.leak_bravo}}"}', context: 'json' },
          ],
        },
        serviceCredential,
        true,
      );
      expect(resolved.status).toBe(200);
      const delta = secrets.find((s) => s.startsWith('sk_live_DELTA')) as string;
      const bravo = secrets.find((s) => s.startsWith('p@ss')) as string;
      expect(resolved.body.result.data.results[0]).toBe(`Bearer ${delta}`);
      expect(JSON.parse(resolved.body.result.data.results[1])).toEqual({ k: bravo });

      // Resolution failures name templates and parameters, never values.
      const headerBreak = await secretsRpc(
        'resolution.resolve',
        { templates: [{ template: 'Bearer {{system.leak_charlie}}', context: 'header' }] },
        serviceCredential,
      );
      expect(headerBreak.body.error.errors[0].code).toBe('invalid_header_value');
      const notUrl = await secretsRpc(
        'resolution.resolve',
        { templates: [{ template: '{{system.leak_alpha}}', context: 'url' }] },
        serviceCredential,
      );
      expect(notUrl.body.error.errors[0].code).toBe('invalid_url');
      const missing = await secretsRpc(
        'resolution.resolve',
        { templates: [{ template: '{{system.leak_alpha}}{{system.leak_missing}}', context: 'text' }] },
        serviceCredential,
      );
      expect(missing.body.error.errors[0]).toMatchObject({
        code: 'unknown_system_parameters',
        meta: { missing: ['leak_missing'] },
      });
      // Users — even an admin — cannot resolve.
      const asUser = await secretsRpc(
        'resolution.resolve',
        { templates: [{ template: '{{system.leak_alpha}}', context: 'text' }] },
        token,
      );
      expect(asUser.status).toBe(403);

      // The gateway's tRPC endpoint serves the same (masked) documents.
      const viaTrpc = await call(
        'gateway trpc systemParameters.get',
        `${base}/trpc/systemParameters.get?input=${encodeURIComponent(JSON.stringify({ id: 'leak_alpha' }))}`,
        { method: 'GET' },
      );
      expect(viaTrpc.body.result.data.data.attributes.value).toBeNull();
    });

    it('keeps an audit trail readable by admins: who, when, which parameter, versions — never values', async () => {
      const lima = secret('LIMA');
      const doomed = await api('POST', '/core/system_parameters', paramDoc({ name: 'leak_lima', value: lima }));
      expect((await api('DELETE', '/core/system_parameters/leak_lima')).status).toBe(204);

      const trail = await api('GET', '/core/system_parameters/leak_alpha/audit_events');
      expect(trail.status).toBe(200);
      expect(
        trail.body.data.map(
          (e: { attributes: { action: string; old_version: number | null; new_version: number | null } }) => [
            e.attributes.action,
            e.attributes.old_version,
            e.attributes.new_version,
          ],
        ),
      ).toEqual([
        ['update', 2, 3],
        ['update', 1, 2],
        ['create', null, 1],
      ]);
      const me = await api('GET', '/core/me');
      expect(trail.body.data[0]).toMatchObject({
        type: 'system_parameter_audit_event',
        attributes: { parameter_name: 'leak_alpha', actor: me.body.data.id },
        relationships: { user: { data: { id: me.body.data.id, type: 'user' } } },
      });
      // A deleted parameter's trail stays readable by id.
      const gone = await api('GET', `/core/system_parameters/${doomed.body.data.id}/audit_events`);
      expect(gone.body.data.map((e: { attributes: { action: string } }) => e.attributes.action)).toEqual([
        'delete',
        'create',
      ]);
      const all = await api('GET', '/core/system_parameter_audit_events?page[size]=5');
      expect(all.body.data).toHaveLength(5);
      expect(all.body.links.next).toContain('page[after]=');
      const next = await call('GET audit next', all.body.links.next, { method: 'GET' });
      expect(next.body.data[0].id).not.toBe(all.body.data[0].id);
      const byName = await api('GET', '/core/system_parameter_audit_events?parameter_name=leak_lima');
      expect(byName.body.data).toHaveLength(2);
    });

    it(`refuses more than SECRETS_MAX_PARAMETERS (${MAX_PARAMETERS}) parameters with 422 parameter_limit_reached`, async () => {
      const total = (await api('GET', '/core/system_parameters?page[size]=1')).body.meta.page.total as number;
      for (let i = total; i < MAX_PARAMETERS; i++) {
        const filler = await api(
          'POST',
          '/core/system_parameters',
          paramDoc({ name: `leak_fill_${i}`, value: `filler-${i}` }),
        );
        expect(filler.status).toBe(201);
      }
      const hotel = secret('HOTEL');
      const refused = await api('POST', '/core/system_parameters', paramDoc({ name: 'leak_hotel', value: hotel }));
      expect([refused.status, refused.body.errors[0].code]).toEqual([422, 'parameter_limit_reached']);
      expect((await api('DELETE', '/core/system_parameters/leak_fill_39')).status).toBe(204);
      expect(
        (await api('POST', '/core/system_parameters', paramDoc({ name: 'leak_hotel', value: hotel }))).status,
      ).toBe(201);
    });

    it('finds no secret plaintext in any response, log line, database row, data file or Redis entry', async () => {
      expect(secrets.length).toBeGreaterThanOrEqual(10);
      expect(exchanges.length).toBeGreaterThan(50);

      // The scanner finds what it looks for: the non-secret control value, and the resolve results.
      const responses = exchanges.filter((e) => !e.plaintextAllowed);
      expect(leaksIn(responses.map((e) => e.body).join('\n'), [`public-NOVEMBER-${tag}`])).not.toEqual([]);
      const allowed = exchanges.filter((e) => e.plaintextAllowed);
      expect(allowed).toHaveLength(1);
      expect(leaksIn(allowed.map((e) => e.body).join('\n'), secrets)).not.toEqual([]);

      const findings: Record<string, string[]> = {};
      const scan = (where: string, text: string) => {
        const found = leaksIn(text, secrets);
        if (found.length > 0) findings[where] = found;
      };
      for (const e of responses) scan(`response to ${e.label} (${e.status})`, `${e.headers}\n${e.body}`);

      await platform.stop(); // flushes logs and database files
      for (const service of ['identity', 'secrets', 'catalog', 'gateway']) {
        const text = (logs[service] ?? []).join('');
        expect(text, `${service} logged nothing`).toContain('"level"');
        scan(`${service} logs`, text);
      }

      for (const service of ['identity', 'secrets', 'catalog']) {
        const tables =
          dialect === 'mysql'
            ? await dumpDatabase({ dialect: 'mysql', url: (mysqlDatabases[service] as { url: string }).url })
            : await dumpDatabase({ dialect: 'sqlite', file: join(dataDir, `${service}.sqlite`) });
        if (service === 'secrets') expect(tables.system_parameters).toContain('leak_alpha');
        for (const [table, rows] of Object.entries(tables)) scan(`${service} table ${table}`, rows);
      }
      const files = await filesUnder(dataDir);
      if (dialect === 'sqlite') expect(files.some((f) => f.endsWith('secrets.sqlite'))).toBe(true);
      for (const file of files) scan(`file ${file}`, (await readFile(file)).toString('latin1'));
      // Binary files: also look for the UTF-8 bytes themselves.
      for (const file of files) {
        const bytes = await readFile(file);
        const raw = secrets.filter((s) => bytes.includes(Buffer.from(s, 'utf8')));
        if (raw.length > 0) findings[`file ${file} (raw bytes)`] = raw;
      }

      if (redis) {
        const entries = await redisDump(redisUrl, cachePrefix);
        expect(entries.some((e) => e.key === `${cachePrefix}param:leak_alpha`)).toBe(true);
        expect(entries.every((e) => e.type === 'string')).toBe(true);
        scan('redis', JSON.stringify(entries));
      }

      expect(findings).toEqual({});
    });
  },
);
