/**
 * The role matrix: every operation of the served `/openapi.json`, called with no credential, a
 * malformed Authorization header, an unknown token, an expired token, a revoked token, an archived
 * user's token, a user without `developer`, a user without the operation's roles (`x-required-roles`,
 * of which one suffices) and, for each of them, a user holding exactly that role — expecting 401 ×6, 403 ×2 (with the documented error
 * document) and a 2xx, and that the eight refused calls changed nothing. An operation without an
 * entry in {@link FIXTURES} fails the test: add one when you add a route.
 *
 * Also: workspace scoping (lists only hold what the caller may see; an invisible resource is 404).
 * Runs on SQLite and on MySQL + Redis.
 */
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, sleep, startTestPlatform, type TestPlatform, unknownToken } from './support/platform.js';

type Role = 'developer' | 'integrations_admin' | 'workspace_manager' | 'global_user_admin';
const ROLES: Role[] = ['developer', 'integrations_admin', 'workspace_manager', 'global_user_admin'];
const ADMIN_ROLES = ROLES.filter((r) => r !== 'developer');
const global = (roles: readonly Role[]) => roles.map((role) => ({ role, workspace_id: null }));

/** Creates what operations act on, as the bootstrap admin; names are unique per platform. */
class Fixtures {
  private n = 0;
  constructor(readonly admin: ReturnType<TestPlatform['as']>) {}

  unique(prefix: string): string {
    this.n++;
    return `${prefix}${this.n}`;
  }

  private async created(res: Promise<ApiResponse>): Promise<string> {
    const r = await res;
    if (r.status !== 201) throw new Error(`fixture creation failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data.id;
  }

  workspace(): Promise<string> {
    return this.created(
      this.admin('POST', '/core/workspaces', { data: { type: 'workspace', attributes: { name: this.unique('ws ') } } }),
    );
  }

  async runbook(workspaceId?: string): Promise<string> {
    const ws = workspaceId ?? (await this.workspace());
    return this.created(
      this.admin('POST', '/core/runbooks', {
        data: {
          type: 'runbook',
          attributes: { name: this.unique('rb ') },
          relationships: { workspace: { data: { id: ws, type: 'workspace' } } },
        },
      }),
    );
  }

  task(runbookId: string): Promise<string> {
    return this.created(
      this.admin('POST', `/core/runbooks/${runbookId}/tasks`, {
        data: { type: 'task', attributes: { name: this.unique('task ') } },
      }),
    );
  }

  parameter(): Promise<string> {
    return this.created(
      this.admin('POST', '/core/system_parameters', {
        data: { type: 'system_parameter', attributes: { name: this.unique('param_'), value: 'v', secret: false } },
      }),
    );
  }

  user(roles: readonly Role[] = ['developer']): Promise<string> {
    const email = `${this.unique('user')}@example.com`;
    return this.created(
      this.admin('POST', '/core/users', {
        data: { type: 'user', attributes: { first_name: 'Fix', last_name: 'Ture', email, roles: global(roles) } },
      }),
    );
  }

  /** A token of `userId`: `{id, token}`. */
  async token(userId: string, expiresAt?: string): Promise<{ id: string; token: string }> {
    const r = await this.admin('POST', `/core/users/${userId}/user_app_tokens`, {
      data: {
        type: 'user_app_token',
        attributes: { label: 'matrix', ...(expiresAt ? { expires_at: expiresAt } : {}) },
      },
    });
    if (r.status !== 201) throw new Error(`token creation failed: ${r.status} ${JSON.stringify(r.body)}`);
    return { id: r.body.data.id, token: r.body.meta.token };
  }

  integration(): Promise<string> {
    return this.created(
      this.admin('POST', '/core/integrations', {
        data: { type: 'integration', attributes: { name: this.unique('hook '), url: 'https://example.com/hook' } },
      }),
    );
  }

  customField(): Promise<string> {
    return this.created(
      this.admin('POST', '/core/custom_fields', {
        data: { type: 'custom_field', attributes: { name: this.unique('field '), field_type: 'text' } },
      }),
    );
  }

  /** Polls `path` (as the admin) until `done(body)`; fixtures wait for the run engine's asynchronous steps. */
  async until(path: string, done: (body: ApiResponse['body']) => boolean): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const r = await this.admin('GET', path);
      if (r.status === 200 && done(r.body)) return;
      await sleep(50);
    }
    throw new Error(`fixture never reached the expected state: ${path}`);
  }

  /** A started (`active`) runbook whose only task is `startable`. */
  async started(): Promise<{ runbook_id: string; id: string }> {
    const runbook_id = await this.runbook();
    const id = await this.task(runbook_id);
    const r = await this.admin('PATCH', `/core/runbooks/${runbook_id}/start`);
    if (r.status !== 200) throw new Error(`runbook start failed: ${r.status} ${JSON.stringify(r.body)}`);
    await this.until(`/core/runbooks/${runbook_id}/tasks/${id}`, (b) => b.data.attributes.stage === 'startable');
    return { runbook_id, id };
  }

  team(memberIds: string[] = []): Promise<string> {
    return this.created(
      this.admin('POST', '/core/teams', {
        data: {
          type: 'team',
          attributes: { name: this.unique('team ') },
          relationships: { members: { data: memberIds.map((id) => ({ id, type: 'user' })) } },
        },
      }),
    );
  }
}

/** What an operation needs: path parameters and (optionally) a body replacing the OpenAPI example. */
interface Prepared {
  params?: Record<string, string>;
  body?: unknown;
}

interface Fixture {
  /** Builds fresh resources for this operation (called once per operation, as the admin). */
  setup?: (f: Fixtures) => Promise<Prepared>;
  /**
   * For a `developer` route whose access also depends on the target — another user's tokens or
   * names, a task not assigned to the caller — the role that grants it to anyone (the user
   * themselves, or an assignee, may act too; that is tested elsewhere).
   */
  othersRole?: Role;
}

const withRunbook = async (f: Fixtures) => ({ runbook_id: await f.runbook() });
const withTaskIds = ({ runbook_id }: { runbook_id: string }) => ({ runbook: { id: runbook_id } });
const withTask = async (f: Fixtures) => {
  const runbook_id = await f.runbook();
  return { runbook_id, id: await f.task(runbook_id) };
};

/** One entry per operationId of the OpenAPI document. */
const FIXTURES: Record<string, Fixture> = {
  'workspaces-list': {},
  'workspaces-get': { setup: async (f) => ({ params: { id: await f.workspace() } }) },
  'workspaces-create': {
    setup: async (f) => ({ body: { data: { type: 'workspace', attributes: { name: f.unique('created ws ') } } } }),
  },
  'runbooks-list': {},
  'runbooks-get': { setup: async (f) => ({ params: { id: await f.runbook() } }) },
  'runbooks-create': {
    setup: async (f) => ({
      body: {
        data: {
          type: 'runbook',
          attributes: { name: 'created' },
          relationships: { workspace: { data: { id: await f.workspace(), type: 'workspace' } } },
        },
      },
    }),
  },
  'runbooks-update': { setup: async (f) => ({ params: { id: await f.runbook() } }) },
  'runbooks-delete': { setup: async (f) => ({ params: { id: await f.runbook() } }) },
  'tasks-list': { setup: async (f) => ({ params: await withRunbook(f) }) },
  'tasks-get': { setup: async (f) => ({ params: await withTask(f) }) },
  'tasks-create': { setup: async (f) => ({ params: await withRunbook(f) }) },
  'tasks-update': { setup: async (f) => ({ params: await withTask(f) }) },
  'tasks-delete': { setup: async (f) => ({ params: await withTask(f) }) },
  'systemParameters-list': {},
  'systemParameters-get': { setup: async (f) => ({ params: { id: await f.parameter() } }) },
  'systemParameters-create': {
    setup: async (f) => ({
      body: { data: { type: 'system_parameter', attributes: { name: f.unique('created_param_'), value: 'x' } } },
    }),
  },
  'systemParameters-update': { setup: async (f) => ({ params: { id: await f.parameter() } }) },
  'systemParameters-delete': { setup: async (f) => ({ params: { id: await f.parameter() } }) },
  'systemParameters-preview': {},
  'users-list': {},
  'users-me': {},
  'users-get': { setup: async (f) => ({ params: { id: await f.user() } }) },
  'users-create': {
    setup: async (f) => ({
      body: {
        data: {
          type: 'user',
          attributes: { first_name: 'New', last_name: 'User', email: `${f.unique('created')}@example.com` },
        },
      },
    }),
  },
  'users-update': {
    othersRole: 'global_user_admin',
    setup: async (f) => ({
      params: { id: await f.user() },
      body: { data: { type: 'user', attributes: { first_name: 'Renamed' } } },
    }),
  },
  'users-archive': { setup: async (f) => ({ params: { id: await f.user() } }) },
  'userAppTokens-list': {
    othersRole: 'global_user_admin',
    setup: async (f) => ({ params: { user_id: await f.user() } }),
  },
  'userAppTokens-create': {
    othersRole: 'global_user_admin',
    setup: async (f) => ({ params: { user_id: await f.user() } }),
  },
  'userAppTokens-revoke': {
    othersRole: 'global_user_admin',
    setup: async (f) => {
      const user_id = await f.user();
      return { params: { user_id, id: (await f.token(user_id)).id } };
    },
  },
  'roleTypes-list': {},
  'teams-list': {},
  'teams-get': { setup: async (f) => ({ params: { id: await f.team() } }) },
  'teams-create': {
    setup: async (f) => ({ body: { data: { type: 'team', attributes: { name: f.unique('created team ') } } } }),
  },
  'teams-update': {
    setup: async (f) => ({
      params: { id: await f.team() },
      body: { data: { type: 'team', attributes: { description: 'changed' } } },
    }),
  },
  'teams-delete': { setup: async (f) => ({ params: { id: await f.team() } }) },
  'teams-addMembers': {
    setup: async (f) => ({ params: { id: await f.team() }, body: { data: [{ id: await f.user(), type: 'user' }] } }),
  },
  'teams-removeMember': {
    setup: async (f) => {
      const user_id = await f.user();
      return { params: { id: await f.team([user_id]), user_id } };
    },
  },
  'actionLogs-list': {},
  'runbooks-start': {
    setup: async (f) => {
      const { runbook_id } = await withTask(f);
      return { params: { id: runbook_id } };
    },
  },
  'runbooks-pause': { setup: async (f) => ({ params: withTaskIds(await f.started()).runbook }) },
  'runbooks-resume': {
    setup: async (f) => {
      const { runbook_id } = await f.started();
      const paused = await f.admin('PATCH', `/core/runbooks/${runbook_id}/pause`);
      if (paused.status !== 200) throw new Error(`pause failed: ${paused.status}`);
      return { params: { id: runbook_id } };
    },
  },
  'runbooks-cancel': { setup: async (f) => ({ params: withTaskIds(await f.started()).runbook }) },
  'runbooks-events': { setup: async (f) => ({ params: withTaskIds(await f.started()).runbook }) },
  'tasks-start': { othersRole: 'workspace_manager', setup: async (f) => ({ params: await f.started() }) },
  'tasks-finish': {
    othersRole: 'workspace_manager',
    setup: async (f) => {
      const params = await f.started();
      const path = `/core/runbooks/${params.runbook_id}/tasks/${params.id}`;
      const started = await f.admin('PATCH', `${path}/start`);
      if (started.status !== 200) throw new Error(`task start failed: ${started.status}`);
      await f.until(path, (b) => b.data.attributes.stage === 'in_progress');
      return { params };
    },
  },
  'tasks-skip': { othersRole: 'workspace_manager', setup: async (f) => ({ params: await f.started() }) },
  'tasks-executions': { setup: async (f) => ({ params: await withTask(f) }) },
  'systemParameters-auditEvents': {},
  'systemParameters-auditEventsOf': { setup: async (f) => ({ params: { id: await f.parameter() } }) },
  'systemParameterUsages-ofParameter': { setup: async (f) => ({ params: { id: await f.parameter() } }) },
  'integrations-list': {},
  'integrations-get': { setup: async (f) => ({ params: { id: await f.integration() } }) },
  'integrations-create': {
    setup: async (f) => ({
      body: {
        data: { type: 'integration', attributes: { name: f.unique('created hook '), url: 'https://example.com/x' } },
      },
    }),
  },
  'integrations-update': {
    setup: async (f) => ({
      params: { id: await f.integration() },
      body: { data: { type: 'integration', attributes: { description: 'changed' } } },
    }),
  },
  'integrations-delete': { setup: async (f) => ({ params: { id: await f.integration() } }) },
  'customFields-list': {},
  'customFields-get': { setup: async (f) => ({ params: { id: await f.customField() } }) },
  'customFields-create': {
    setup: async (f) => ({
      body: { data: { type: 'custom_field', attributes: { name: f.unique('created field '), field_type: 'text' } } },
    }),
  },
  'customFields-update': {
    setup: async (f) => ({
      params: { id: await f.customField() },
      body: { data: { type: 'custom_field', attributes: { description: 'changed' } } },
    }),
  },
  'comments-list': { setup: async (f) => ({ params: await withRunbook(f) }) },
  'comments-create': { setup: async (f) => ({ params: await withRunbook(f) }) },
  'comments-listOfTask': {
    setup: async (f) => {
      const { runbook_id, id } = await withTask(f);
      return { params: { runbook_id, task_id: id } };
    },
  },
  'comments-createOnTask': {
    setup: async (f) => {
      const { runbook_id, id } = await withTask(f);
      return { params: { runbook_id, task_id: id } };
    },
  },
};

interface Operation {
  id: string;
  method: string;
  path: string;
  /** `x-required-roles`: one of them suffices. */
  roles: Role[];
  hasBody: boolean;
  example: unknown;
}

type OpenApiOperation = {
  operationId: string;
  'x-required-role'?: Role;
  'x-required-roles'?: Role[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
};

function operationsOf(doc: { paths: Record<string, Record<string, OpenApiOperation>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      id: op.operationId,
      method: method.toUpperCase(),
      path,
      roles: op['x-required-roles'] ?? [],
      hasBody: op.requestBody !== undefined,
      example: op.requestBody?.content?.['application/json']?.example,
    })),
  );
}

const fill = (template: string, params: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for path parameter {${name}} of ${template}`);
    return value;
  });

/** JSON without values that change on reads (`last_used_at`). */
const stable = (value: unknown) => JSON.stringify(value, (k, v) => (k === 'last_used_at' ? undefined : v));

describe.each(await testDialects())('role matrix on %s', (dialect) => {
  let platform: TestPlatform;
  let operations: Operation[];
  let f: Fixtures;
  const tokens = {} as {
    unknown: string;
    expired: string;
    revoked: string;
    archived: string;
    noDeveloper: string;
    allBut: Record<Role, string>;
    only: Record<Role, string>;
  };

  beforeAll(async () => {
    // The matrix sends hundreds of refused calls from one IP: rate limits are tested on their own.
    platform = await startTestPlatform(dialect, {
      gateway: { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0' },
    });
    const admin = platform.as(platform.adminToken);
    f = new Fixtures(admin);
    const everyRole = await f.user(ROLES);
    const expiresAt = Date.now() + 2500;
    const expiring = await f.token(everyRole, new Date(expiresAt).toISOString());
    const revoked = await f.token(everyRole);
    const archivedUser = await f.user(ROLES);
    const archived = await f.token(archivedUser);
    for (const token of [expiring.token, revoked.token, archived.token]) {
      expect((await platform.as(token)('GET', '/core/runbooks')).status).toBe(200); // valid, caches warm
    }
    expect((await admin('DELETE', `/core/users/${everyRole}/user_app_tokens/${revoked.id}`)).status).toBe(204);
    expect((await admin('PATCH', `/core/users/${archivedUser}/archive`)).status).toBe(204);
    const changedAt = Date.now();
    Object.assign(tokens, {
      unknown: unknownToken(),
      expired: expiring.token,
      revoked: revoked.token,
      archived: archived.token,
      noDeveloper: (await f.token(await f.user(ADMIN_ROLES))).token,
      allBut: {} as Record<Role, string>,
      only: {} as Record<Role, string>,
    });
    for (const role of ROLES) {
      tokens.only[role] = (
        await f.token(await f.user(role === 'developer' ? ['developer'] : ['developer', role]))
      ).token;
      if (role !== 'developer')
        tokens.allBut[role] = (await f.token(await f.user(ROLES.filter((r) => r !== role)))).token;
    }
    const doc = (await (await fetch(`${platform.base}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
    operations = operationsOf(doc);
    // Past the expiry, and past the documented 1 s bound for revocation and archival on every service.
    await sleep(Math.max(expiresAt, changedAt) + 1100 - Date.now());
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
  });

  /** A token of a user holding developer and every role but `roles` (`roles` of ['developer']: no developer). */
  async function tokenWithout(roles: Role[]): Promise<string> {
    if (roles.join() === 'developer') return tokens.noDeveloper;
    if (roles.length === 1 && roles[0] !== undefined) return tokens.allBut[roles[0]];
    return (await f.token(await f.user(ROLES.filter((r) => !roles.includes(r))))).token;
  }

  /** Totals of every list and the operation's own resource, read as the admin. */
  async function snapshot(op: Operation, path: string): Promise<string> {
    const admin = platform.as(platform.adminToken);
    const lists = operations.filter(
      (o) =>
        o.method === 'GET' &&
        !o.path.includes('{') &&
        !['/core/action_logs', '/core/me', '/core/role_types'].includes(o.path),
    );
    const totals = await Promise.all(
      lists.map(async (l) => {
        const r = await admin('GET', `${l.path}?page[size]=1`);
        return [l.path, r.status, r.body?.meta?.page?.total];
      }),
    );
    // The resource the operation acts on: the nearest path (itself or an ancestor) that has a GET.
    const gets = new Set(operations.filter((o) => o.method === 'GET').map((o) => o.path));
    let template = op.path;
    let concrete = path;
    while (!gets.has(template) && template.includes('/', 1)) {
      template = template.slice(0, template.lastIndexOf('/'));
      concrete = concrete.slice(0, concrete.lastIndexOf('/'));
    }
    const own = gets.has(template) && template.includes('{') ? await admin('GET', concrete) : undefined;
    return stable({ totals, own: own && [own.status, own.body] });
  }

  it('answers every operation of /openapi.json with 401×6, 403×2 and 2xx for the right role, changing nothing when refused', async () => {
    const failures: string[] = [];
    expect(operations.length).toBeGreaterThan(30);
    for (const id of Object.keys(FIXTURES)) {
      if (!operations.some((o) => o.id === id)) failures.push(`${id}: fixture for an operation that no longer exists`);
    }
    for (const op of operations) {
      const label = `${op.id} (${op.method} ${op.path})`;
      const fixture = FIXTURES[op.id];
      if (!fixture) {
        failures.push(`${label}: no fixture — add an entry to FIXTURES in tests/e2e/src/access.integration.test.ts`);
        continue;
      }
      if (op.roles.length === 0 || !op.roles.every((r) => ROLES.includes(r))) {
        failures.push(`${label}: x-required-roles ${JSON.stringify(op.roles)} is not a list of roles`);
        continue;
      }
      if (fixture.othersRole && op.roles.join() !== 'developer')
        failures.push(`${label}: othersRole given for a non-developer route`);
      const roles = fixture.othersRole ? [fixture.othersRole] : op.roles;
      const prepared = (await fixture.setup?.(f)) ?? {};
      const path = fill(op.path, prepared.params ?? {});
      const body = op.hasBody ? (prepared.body ?? op.example) : undefined;
      const send = (token: string | null, headers: Record<string, string> = {}) =>
        platform.as(token)(op.method, path, body, headers);

      const without = await tokenWithout(roles); // may create a user: before the snapshot
      const before = await snapshot(op, path);
      const refused: Array<[string, Promise<ApiResponse>, 401 | 403]> = [
        ['no credential', send(null), 401],
        ['malformed header', send(null, { authorization: `Token ${platform.adminToken}` }), 401],
        ['unknown token', send(tokens.unknown), 401],
        ['expired token', send(tokens.expired), 401],
        ['revoked token', send(tokens.revoked), 401],
        ['archived user', send(tokens.archived), 401],
        ['user without developer', send(tokens.noDeveloper), 403],
        [`user without ${roles.join(' or ')}`, send(without), 403],
      ];
      for (const [who, response, status] of refused) {
        const res = await response;
        const code = status === 401 ? 'unauthorized' : 'forbidden';
        const title = status === 401 ? 'Unauthorized' : 'Forbidden';
        const error = res.body?.errors?.[0];
        const documented =
          res.status === status &&
          Object.keys(res.body ?? {}).join() === 'errors' &&
          res.body.errors.length === 1 &&
          error.status === String(status) &&
          error.code === code &&
          error.title === title &&
          typeof error.detail === 'string';
        if (!documented)
          failures.push(`${label} ${who}: expected ${status} ${code}, got ${res.status} ${stable(res.body)}`);
      }
      const after = await snapshot(op, path);
      if (after !== before)
        failures.push(`${label}: refused calls changed state\n  before ${before}\n  after  ${after}`);

      // Each of the roles suffices (a fresh fixture for every one after the first: a delete uses its own up).
      for (const [i, role] of roles.entries()) {
        const fresh = i === 0 ? prepared : ((await fixture.setup?.(f)) ?? {});
        const allowed = await platform.as(tokens.only[role])(
          op.method,
          fill(op.path, fresh.params ?? {}),
          op.hasBody ? (fresh.body ?? op.example) : undefined,
        );
        if (allowed.status < 200 || allowed.status > 299) {
          failures.push(`${label} user with ${role}: expected 2xx, got ${allowed.status} ${stable(allowed.body)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('lets members of a team a task is assigned to act on it, through identity; others get 403', async () => {
    const admin = platform.as(platform.adminToken);
    const [member, outsider] = [await f.user(), await f.user()];
    const team = await f.team([member]);
    const { runbook_id, id } = await f.started();
    const path = `/core/runbooks/${runbook_id}/tasks/${id}`;
    const assigned = await admin('PATCH', path, {
      data: { type: 'task', attributes: {}, relationships: { assignees: { data: [{ id: team, type: 'team' }] } } },
    });
    expect(assigned.status).toBe(200);
    const asOutsider = platform.as((await f.token(outsider)).token);
    const refused = await asOutsider('PATCH', `${path}/start`);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('forbidden');
    const asMember = platform.as((await f.token(member)).token);
    const started = await asMember('PATCH', `${path}/start`);
    expect(started.status).toBe(200);
    expect(started.body.data.attributes.stage).toBe('in_progress');
    // Removed from the team: the next action is refused.
    expect((await admin('DELETE', `/core/teams/${team}/members/${member}`)).status).toBe(204);
    expect((await asMember('PATCH', `${path}/finish`)).status).toBe(403);
    expect((await admin('GET', path)).body.data.attributes.stage).toBe('in_progress');
  });

  it('scopes workspaces: a user with only workspace roles sees those workspaces; others are 404', async () => {
    const admin = platform.as(platform.adminToken);
    const [wsA, wsB] = [await f.workspace(), await f.workspace()];
    const [rbA, rbB] = [await f.runbook(wsA), await f.runbook(wsB)];
    const taskB = await f.task(rbB);
    const scoped = await admin('POST', '/core/users', {
      data: {
        type: 'user',
        attributes: {
          first_name: 'Scoped',
          last_name: 'Manager',
          email: `${f.unique('scoped')}@example.com`,
          roles: [
            { role: 'developer', workspace_id: wsA },
            { role: 'workspace_manager', workspace_id: wsA },
          ],
        },
      },
    });
    expect(scoped.status).toBe(201);
    const as = platform.as((await f.token(scoped.body.data.id)).token);

    const workspaces = await as('GET', '/core/workspaces?page[size]=100');
    expect(workspaces.body.data.map((w: { id: string }) => w.id)).toEqual([wsA]);
    expect(workspaces.body.meta.page.total).toBe(1);
    const runbooks = await as('GET', '/core/runbooks?page[size]=100');
    expect(runbooks.body.data.map((r: { id: string }) => r.id)).toEqual([rbA]);
    expect((await as('GET', `/core/runbooks?workspace_id=${wsB}`)).body.meta.page.total).toBe(0);

    const missing = (await as('GET', '/core/runbooks/99999999')).body;
    for (const [method, path, body] of [
      ['GET', `/core/workspaces/${wsB}`],
      ['GET', `/core/runbooks/${rbB}`],
      ['GET', `/core/runbooks/${rbB}/tasks`],
      ['GET', `/core/runbooks/${rbB}/tasks/${taskB}`],
      ['PATCH', `/core/runbooks/${rbB}`, { data: { type: 'runbook', attributes: { name: 'x' } } }],
      ['DELETE', `/core/runbooks/${rbB}`],
      ['POST', `/core/runbooks/${rbB}/tasks`, { data: { type: 'task', attributes: { name: 'x' } } }],
      ['PATCH', `/core/runbooks/${rbB}/tasks/${taskB}/start`],
    ] as const) {
      const res = await as(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.errors[0].code).toBe('not_found');
    }
    // Same answer as for a runbook that does not exist: visibility leaks nothing.
    expect((await as('GET', `/core/runbooks/${rbB}`)).body.errors[0].detail).toBe(
      missing.errors[0].detail.replace('99999999', rbB),
    );
    const intoB = await as('POST', '/core/runbooks', {
      data: {
        type: 'runbook',
        attributes: { name: 'x' },
        relationships: { workspace: { data: { id: wsB, type: 'workspace' } } },
      },
    });
    expect(intoB.status).toBe(422);
    expect(intoB.body.errors[0].code).toBe('unknown_workspace');
    expect((await admin('GET', `/core/runbooks/${rbB}`)).body.data.attributes.name).not.toBe('x');

    expect((await as('GET', `/core/runbooks/${rbA}/tasks`)).status).toBe(200);
    expect(
      (await as('PATCH', `/core/runbooks/${rbA}`, { data: { type: 'runbook', attributes: { name: 'mine' } } })).status,
    ).toBe(200);

    // A global role shows every workspace.
    const everything = await platform.as(tokens.only.developer)('GET', '/core/workspaces?page[size]=100');
    expect(everything.body.data.map((w: { id: string }) => w.id)).toEqual(expect.arrayContaining([wsA, wsB]));
  });
});
