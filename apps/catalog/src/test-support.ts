/**
 * Test dependencies for catalog: a fresh migrated database per dialect, a fixed clock, a query
 * counter, and a fake authenticator mapping credentials to principals (no identity process needed).
 */
import {
  AppError,
  type Principal,
  type Role,
  type RoleAssignment,
  unauthorized,
  unprocessable,
} from '@runbook/contracts';
import { type Dialect, dialectOf } from '@runbook/db';
import { createTestDatabase } from '@runbook/db/testing';
import { createLogger } from '@runbook/rpc';
import { TRPCError } from '@trpc/server';
import { CompiledQuery } from 'kysely';
import { expect } from 'vitest';
import type { Database } from './db/database.js';
import { migrations } from './db/migrations/index.js';
import { type CatalogDeps, defaultOrchestrationConfig } from './deps.js';
import { createJobWorker, type JobWorker } from './orchestration/job-worker.js';
import { catalogRouter } from './router.js';
import type {
  ResolvedTemplates,
  TemplateCheck,
  TemplateService,
  TemplateToResolve,
  TemplateToValidate,
} from './secrets-port.js';
import { createCallerFactory, createContextInner } from './trpc.js';

const createCaller = createCallerFactory(catalogRouter);
export type CatalogCaller = ReturnType<typeof createCaller>;

/**
 * A fake of the secrets service's template procedures: parameters live in a map; references are
 * rendered per context like the real service (JSON escaping, CR/LF rejected in headers, URL check);
 * unknown names fail the whole resolution with 422 `unknown_system_parameters`.
 */
export class FakeSecrets implements TemplateService {
  readonly params = new Map<string, { value: string; secret: boolean; version: number }>();
  readonly calls = { resolve: 0, validate: 0 };
  /** When set, every call fails with this error (e.g. a 503). */
  failWith: AppError | null = null;

  /** Creates or changes a parameter (secret by default). */
  set(name: string, value: string, secret = true): void {
    const version = (this.params.get(name)?.version ?? 0) + 1;
    this.params.set(name, { value, secret, version });
  }

  private static readonly REF = /(\\?)\{\{[ \t]*system\.([a-z][a-z0-9_]*)[ \t]*\}\}/g;

  private names(template: string): string[] {
    if (/\{\{\s*system\.(?![a-z][a-z0-9_]*\s*\}\})/.test(template)) {
      throw unprocessable('invalid_template', 'Malformed system parameter reference.');
    }
    return [...template.matchAll(FakeSecrets.REF)].filter((m) => !m[1]).map((m) => m[2] as string);
  }

  async resolve(templates: TemplateToResolve[]): Promise<ResolvedTemplates> {
    this.calls.resolve++;
    if (this.failWith) throw this.failWith;
    const names = [...new Set(templates.flatMap((t) => this.names(t.template)))];
    const missing = names.filter((n) => !this.params.has(n)).sort();
    if (missing.length > 0) {
      throw new AppError(422, 'unknown_system_parameters', `Unknown system parameters: ${missing.join(', ')}.`, {
        meta: { missing },
      });
    }
    const results = templates.map((t) => {
      const out = t.template.replace(FakeSecrets.REF, (whole, escaped: string, name: string) => {
        if (escaped) return whole.slice(1);
        const value = (this.params.get(name) as { value: string }).value;
        if (t.context === 'header' && /[\r\n\0]/.test(value))
          throw unprocessable('invalid_header_value', 'A header value may not contain CR, LF or NUL.');
        return t.context === 'json' ? JSON.stringify(value).slice(1, -1) : value;
      });
      if (t.context === 'url') {
        try {
          new URL(out);
        } catch {
          throw unprocessable('invalid_url', 'The resolved template is not a valid absolute URL.');
        }
      }
      return out;
    });
    return {
      results,
      references: names
        .sort()
        .map((name) => ({ name, version: (this.params.get(name) as { version: number }).version })),
      secret_values: names
        .map((n) => this.params.get(n) as { value: string; secret: boolean })
        .filter((p) => p.secret)
        .map((p) => p.value),
    };
  }

  async validate(templates: TemplateToValidate[]): Promise<TemplateCheck> {
    this.calls.validate++;
    if (this.failWith) throw this.failWith;
    const errors: TemplateCheck['errors'] = [];
    const names = new Set<string>();
    templates.forEach((t, index) => {
      if (t.field_type === 'temporary_credentials' && t.template.includes('{{')) {
        errors.push({
          index,
          code: 'temporary_credentials_not_allowed',
          detail: 'Temporary credentials fields cannot reference system parameters; use system parameters instead',
        });
        return;
      }
      if (t.context === 'json') {
        try {
          JSON.parse(t.template.replace(FakeSecrets.REF, ''));
        } catch {
          errors.push({ index, code: 'invalid_template', detail: 'The template is not valid JSON.' });
          return;
        }
      }
      try {
        for (const n of this.names(t.template)) names.add(n);
      } catch (e) {
        errors.push({ index, code: (e as AppError).code, detail: (e as AppError).message });
      }
    });
    templates.forEach((t, index) => {
      if (errors.some((e) => e.index === index)) return;
      const unknown = [...new Set(this.names(t.template))].filter((n) => !this.params.has(n)).sort();
      if (unknown.length > 0)
        errors.push({
          index,
          code: 'unknown_system_parameters',
          detail: `Unknown system parameters: ${unknown.join(', ')}.`,
          meta: { missing: unknown },
        });
    });
    errors.sort((a, b) => a.index - b.index);
    const missing = [...names].filter((n) => !this.params.has(n)).sort();
    return { valid: errors.length === 0, missing, errors };
  }
}

export interface CatalogTestKit {
  deps: CatalogDeps;
  clock: { now: number };
  /** The fake secrets service behind `deps.secrets`. */
  secrets: FakeSecrets;
  /** The job worker of `deps` (not started: drive it with `runDue()`). */
  worker: JobWorker;
  /** How often `deps.jobsQueued` was called. */
  wakeups: { count: number };
  /**
   * The fake directory's team memberships (team id → user ids; add to it freely) and how often it
   * was asked about them.
   */
  teams: { members: Map<string, Set<string>>; asked: number };
  /** The database's location (MySQL URL or SQLite file), for a second connection pool. */
  location: string;
  /** Database queries run so far (reset `count` before measuring) and the latest 50 of them, oldest first. */
  queries: { count: number; recent: Array<{ sql: string; parameters: readonly unknown[] }> };
  /** A caller presenting `credential`. */
  caller(credential: string | null): CatalogCaller;
  /** Registers a user holding `roles` (plain names are global) and returns a credential for them. */
  userWith(roles: Array<Role | RoleAssignment>): string;
  /** A caller for a user holding `roles` (plain names are global). */
  as(roles: Array<Role | RoleAssignment>): CatalogCaller;
  destroy(): Promise<void>;
}

export async function createCatalogTestKit(dialect: Dialect): Promise<CatalogTestKit> {
  const queries: CatalogTestKit['queries'] = { count: 0, recent: [] };
  const testDb = await createTestDatabase<Database>(dialect, migrations, {
    onQuery: ({ sql, parameters }) => {
      queries.count++;
      queries.recent.push({ sql, parameters });
      if (queries.recent.length > 50) queries.recent.shift();
    },
  });
  const clock = { now: Date.UTC(2026, 10, 21, 12, 0, 0) };
  const principals = new Map<string, Principal>();
  const secrets = new FakeSecrets();
  const wakeups = { count: 0 };
  const teams = { members: new Map<string, Set<string>>(), asked: 0 };
  const deps: CatalogDeps = {
    db: testDb.db,
    authenticate: async (credential) => {
      const principal = principals.get(credential);
      if (!principal) throw unauthorized('The bearer token is not valid.');
      return principal;
    },
    logger: createLogger('catalog-test', 'silent'),
    now: () => clock.now,
    secrets,
    // Ids from 900000 up are unknown to the fake directory.
    directory: {
      findMissing: async (assignees) => assignees.filter((a) => Number(a.id) >= 900_000),
      teamsOfUser: async (userId, teamIds) => {
        teams.asked++;
        return teamIds.filter((id) => teams.members.get(id)?.has(userId));
      },
    },
    fetch: globalThis.fetch,
    orchestration: { ...defaultOrchestrationConfig, workerId: 'test-worker', pollMs: 10, maxAttempts: 3 },
    jobsQueued: () => {
      wakeups.count++;
    },
  };
  const caller = (credential: string | null) => createCaller(createContextInner(deps, credential));
  const userWith = (roles: Array<Role | RoleAssignment>) => {
    const n = principals.size + 1;
    const credential = `test-token-${n}`;
    principals.set(credential, {
      kind: 'user',
      user_id: String(n),
      token_id: String(n),
      roles: roles.map((r) => (typeof r === 'string' ? { role: r, workspace_id: null } : r)),
    });
    return credential;
  };
  return {
    deps,
    clock,
    secrets,
    worker: createJobWorker(deps),
    wakeups,
    teams,
    location: testDb.location,
    queries,
    caller,
    userWith,
    as: (roles) => caller(userWith(roles)),
    destroy: () => testDb.destroy(),
  };
}

/**
 * Inserts `count` rows made by `row(i)` into `table` (batches of 1,000) and refreshes the
 * database's statistics (`ANALYZE`): the data set of a plan test.
 */
export async function insertMany(
  kit: CatalogTestKit,
  table: 'runbooks' | 'tasks',
  count: number,
  row: (i: number) => Record<string, unknown>,
): Promise<void> {
  for (let i = 0; i < count; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - i) }, (_, j) => row(i + j));
    await kit.deps.db
      .insertInto(table)
      .values(rows as never)
      .execute();
  }
  await kit.deps.db.executeQuery(
    CompiledQuery.raw(dialectOf(kit.deps.db) === 'mysql' ? `ANALYZE TABLE \`${table}\`` : `ANALYZE "${table}"`),
  );
}

/**
 * Follows 120 cursor pages of 25 of a list (`list(after)`), reads the next one, and expects MariaDB's
 * plan of that page's query (the latest one starting with ``select * from `<table>` ``, run under
 * `EXPLAIN FORMAT=JSON`) to be a `range` on `keyParts` — one seek, not `ref` on the filter column
 * stepping through every earlier entry nor a sort of every row (ADR 0009) — and, when `hinted`, to
 * name the list's seek index. MySQL kits only.
 */
export async function expectCursorPagesToSeek(
  kit: CatalogTestKit,
  table: string,
  keyParts: readonly string[],
  list: (after: string | undefined) => Promise<{ next_cursor: string | null }>,
  hinted = true,
): Promise<void> {
  let after: string | undefined;
  for (let n = 0; n < 120; n++) after = (await list(after)).next_cursor ?? undefined;
  expect(after).toBeDefined();
  await list(after);
  const prefix = `select * from \`${table}\``;
  const query = kit.queries.recent.findLast((q) => q.sql.startsWith(prefix));
  if (hinted) expect(query?.sql).toContain('FORCE INDEX');
  const result = await kit.deps.db.executeQuery<{ EXPLAIN: string }>(
    CompiledQuery.raw(`EXPLAIN FORMAT=JSON ${query?.sql}`, [...(query?.parameters ?? [])]),
  );
  const firstTable = (node: unknown): Record<string, unknown> | undefined => {
    if (!node || typeof node !== 'object') return undefined;
    const found = (node as { table?: unknown }).table;
    if (found && typeof found === 'object') return found as Record<string, unknown>;
    for (const child of Object.values(node)) {
      const inner = firstTable(child);
      if (inner) return inner;
    }
    return undefined;
  };
  const plan = firstTable(JSON.parse(result.rows[0]?.EXPLAIN ?? '{}')) ?? {};
  expect(plan.access_type, JSON.stringify(plan)).toBe('range');
  expect((plan.used_key_parts as string[] | undefined)?.slice(0, keyParts.length)).toEqual(keyParts);
}

/** One row of MariaDB's tabular `EXPLAIN`. */
export interface ExplainRow {
  select_type: string;
  table: string;
  type: string | null;
  key: string | null;
  Extra: string | null;
}

/** One row of SQLite's `EXPLAIN QUERY PLAN`. */
export interface QueryPlanRow {
  id: number;
  parent: number;
  detail: string;
}

/**
 * The plan of the latest recorded query whose SQL satisfies `which`, run again with its parameters
 * under MariaDB's tabular `EXPLAIN` or SQLite's `EXPLAIN QUERY PLAN` (the kit's dialect decides).
 */
export async function explainLatest(
  kit: CatalogTestKit,
  which: (sql: string) => boolean,
): Promise<ExplainRow[] | QueryPlanRow[]> {
  const query = kit.queries.recent.findLast((q) => which(q.sql));
  expect(query).toBeDefined();
  const explain = dialectOf(kit.deps.db) === 'mysql' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN';
  const result = await kit.deps.db.executeQuery<ExplainRow | QueryPlanRow>(
    CompiledQuery.raw(`${explain} ${query?.sql}`, [...(query?.parameters ?? [])]),
  );
  return result.rows as ExplainRow[] | QueryPlanRow[];
}

/** The tRPC code a call fails with, or `'ok'`. */
export async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    return (e as TRPCError).code;
  }
}

/** The AppError a call fails with (fails the test when it succeeds). */
export async function appErrorOf(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    return (e as TRPCError).cause as AppError;
  }
  throw new Error('expected the call to fail');
}

/** A request as the test receiver saw it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTP receiver on loopback for integration tasks. By default it answers 200 with a JSON echo of
 * what it received; `respond` overrides that per request. It de-duplicates by `Idempotency-Key` the
 * way a careful receiver would: `effects` counts each key once.
 */
export interface TestReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Idempotency-Key → how many times its effect was applied (always 1 for a de-duplicating receiver). */
  effects: Map<string, number>;
  respond: (req: ReceivedRequest) => { status: number; body: string } | Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<TestReceiver> {
  const { createServer } = await import('node:http');
  const receiver: TestReceiver = {
    url: '',
    requests: [],
    effects: new Map(),
    respond: (req) => ({ status: 200, body: JSON.stringify({ received: req }) }),
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const seen: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.requests.push(seen);
      const key = String(req.headers['idempotency-key'] ?? '');
      if (key && !receiver.effects.has(key)) receiver.effects.set(key, 1);
      const { status, body } = await receiver.respond(seen);
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
