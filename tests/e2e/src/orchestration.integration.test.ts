/**
 * Runbook orchestration end to end: the four real services as separate processes, driven over the
 * gateway's REST API, with a real HTTP receiver on loopback standing in for the external systems that
 * integration tasks call. The receiver de-duplicates by `Idempotency-Key`, as the platform expects of
 * receivers, and counts the effect of each key once. Runs on the embedded default (SQLite) and on
 * MySQL + Redis; the catalog is killed with SIGKILL mid-request and restarted on both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmptyMysqlDatabase, testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error — plain ESM script without type declarations
import { startPlatform } from '../../../scripts/start-local.mjs';
import { freePort } from './support/platform.js';

interface Platform {
  gatewayUrl: string;
  adminToken: string;
  stop(): Promise<void>;
  restart(name: string, signal?: NodeJS.Signals): Promise<void>;
}

interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  key: string;
  /** A repeat of a key already seen (answered from the stored response). */
  replay: boolean;
}

/** The external system: records requests, applies each Idempotency-Key's effect once, can hold a response. */
async function startReceiver() {
  const requests: Received[] = [];
  const effects = new Map<string, number>();
  const answered = new Map<string, { status: number; body: string }>();
  const held: ServerResponse[] = [];
  const state = {
    /** Path prefixes whose first request is held (no response) until the connection dies. */
    holdFirst: new Set<string>(),
    statusFor: (_path: string) => 200,
  };
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? '');
      const path = req.url ?? '';
      const replay = effects.has(key);
      requests.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        key,
        replay,
      });
      if (replay) {
        const previous = answered.get(key) ?? { status: 200, body: '{"replayed":true}' };
        res.writeHead(previous.status, { 'content-type': 'application/json' }).end(previous.body);
        return;
      }
      effects.set(key, 1);
      const pathOnly = path.split('?')[0] ?? '';
      const hold = [...state.holdFirst].find((prefix) => pathOnly.startsWith(prefix));
      if (hold !== undefined) {
        state.holdFirst.delete(hold);
        held.push(res);
        return;
      }
      const status = state.statusFor(pathOnly);
      const body = JSON.stringify({ ok: status < 300, saw_authorization: req.headers.authorization });
      if (status < 300) answered.set(key, { status, body });
      else effects.delete(key); // a failure has no effect: a retry may apply it
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    requests,
    effects,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECRET = 'rcv_"tok"/+ü_e2e';

describe.each(await testDialects())('orchestration end to end on %s', (dialect) => {
  let platform: Platform;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dataDir: string;
  const drops: Array<() => Promise<void>> = [];
  let base: string;
  let token: string;
  let ws: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** Polls `read` until `done` holds (bounded). */
  const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting; last value ${JSON.stringify(value)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const parameter = (name: string, value: string, secret: boolean) =>
    ok('POST', '/core/system_parameters', { data: { type: 'system_parameter', attributes: { name, value, secret } } });
  const integration = async (attributes: Record<string, unknown>) =>
    (await ok('POST', '/core/integrations', { data: { type: 'integration', attributes } })).data.id as string;
  const runbook = async (name: string) =>
    (
      await ok('POST', '/core/runbooks', {
        data: {
          type: 'runbook',
          attributes: { name },
          relationships: { workspace: { data: { id: ws, type: 'workspace' } } },
        },
      })
    ).data.id as string;
  const task = async (
    rb: string,
    name: string,
    options: { predecessors?: string[]; integration?: string; auto_start?: boolean; auto_finish?: boolean } = {},
  ) =>
    (
      await ok('POST', `/core/runbooks/${rb}/tasks`, {
        data: {
          type: 'task',
          attributes: { name, auto_start: options.auto_start ?? false, auto_finish: options.auto_finish ?? false },
          relationships: {
            predecessors: { data: (options.predecessors ?? []).map((id) => ({ id, type: 'task' })) },
            ...(options.integration ? { integration: { data: { id: options.integration, type: 'integration' } } } : {}),
          },
        },
      })
    ).data.id as string;
  const getTask = async (rb: string, id: string) => (await ok('GET', `/core/runbooks/${rb}/tasks/${id}`)).data;
  const getRunbook = async (rb: string) => (await ok('GET', `/core/runbooks/${rb}`)).data;
  const executions = async (rb: string, id: string) =>
    (await ok('GET', `/core/runbooks/${rb}/tasks/${id}/executions?page[size]=100`)).data as Array<{
      attributes: Record<string, unknown>;
    }>;

  beforeAll(async () => {
    receiver = await startReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'runbook-orchestration-'));
    const serviceEnv: Record<string, Record<string, string>> = {
      catalog: {
        // A short lease so a killed catalog's request is re-run within seconds; fast polling and retries.
        CATALOG_JOB_LEASE_MS: '3000',
        CATALOG_WORKER_POLL_MS: '100',
        CATALOG_RETRY_BASE_MS: '200',
        CATALOG_RETRY_MAX_ATTEMPTS: '2',
      },
    };
    if (dialect === 'mysql') {
      for (const service of ['identity', 'secrets', 'catalog']) {
        const db = await createEmptyMysqlDatabase();
        drops.push(db.drop);
        serviceEnv[service] = { ...serviceEnv[service], MYSQL_URL: db.url, REDIS_URL: redisUrl };
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
      env: { LOG_LEVEL: 'warn' },
      output: process.env.E2E_LOGS ? 'inherit' : 'ignore',
    });
    base = platform.gatewayUrl;
    token = platform.adminToken;
    ws = (await ok('POST', '/core/workspaces', { data: { type: 'workspace', attributes: { name: 'Orchestration' } } }))
      .data.id;
    await parameter('rcv_base', receiver.url, false);
    await parameter('rcv_env', 'blue', false);
    await parameter('rcv_token', SECRET, true);
  });

  afterAll(async () => {
    await platform?.stop();
    await receiver?.close();
    for (const drop of drops) await drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('runs manual and integration tasks with dependencies to completion, injecting parameters at run time', async () => {
    const notify = await integration({
      name: 'Notify receiver',
      method: 'POST',
      url: '{{system.rcv_base}}/hooks/{{system.rcv_env}}?token={{system.rcv_token}}',
      headers: [
        { name: 'Authorization', value: 'Bearer {{ system.rcv_token }}' },
        { name: 'X-Env', value: '{{system.rcv_env}}' },
      ],
      body: '{"secret": "{{system.rcv_token}}", "env": "{{system.rcv_env}}"}',
    });
    const rb = await runbook('End to end run');
    const prepare = await task(rb, 'Prepare');
    const call1 = await task(rb, 'Call one', { predecessors: [prepare], integration: notify, auto_start: true });
    const call2 = await task(rb, 'Call two', { predecessors: [prepare], integration: notify, auto_start: true });
    const verify = await task(rb, 'Verify', { predecessors: [call1] });
    const close = await task(rb, 'Close', { predecessors: [verify, call2], auto_start: true, auto_finish: true });

    const notYet = await api('PATCH', `/core/runbooks/${rb}/tasks/${prepare}/start`);
    expect(notYet.status).toBe(422);
    expect(notYet.body.errors[0].code).toBe('runbook_not_active');

    const started = await ok('PATCH', `/core/runbooks/${rb}/start`, { meta: { run_type: 'live' } });
    expect(started.data.attributes).toMatchObject({ stage: 'active', run_type: 'live' });
    const blocked = await api('PATCH', `/core/runbooks/${rb}/tasks/${verify}/start`);
    expect(blocked.status).toBe(422);
    expect(blocked.body.errors[0].code).toBe('predecessors_incomplete');
    expect((await api('PATCH', `/core/runbooks/${rb}/tasks/${prepare}/finish`)).body.errors[0].code).toBe(
      'invalid_transition',
    );

    expect((await ok('PATCH', `/core/runbooks/${rb}/tasks/${prepare}/start`)).data.attributes.stage).toBe(
      'in_progress',
    );
    await ok('PATCH', `/core/runbooks/${rb}/tasks/${prepare}/finish`);
    const [t1, t2] = await Promise.all(
      [call1, call2].map((id) =>
        waitFor(
          () => getTask(rb, id),
          (t) => t.attributes.stage === 'complete',
        ),
      ),
    );
    expect(t1.attributes).toMatchObject({ completion_type: 'complete_auto', execution_status: 'succeeded' });
    expect(t1.relationships.integration.data).toEqual({ id: notify, type: 'integration' });
    expect(t2.attributes.completion_type).toBe('complete_auto');

    const calls = receiver.requests.filter((r) => r.path.startsWith('/hooks/'));
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      // Values are inserted into a URL as they are; the HTTP client percent-encodes what a URL cannot hold.
      const sent = new URL(`${receiver.url}/hooks/blue?token=${SECRET}`);
      expect(call.path).toBe(`${sent.pathname}${sent.search}`);
      expect(call.method).toBe('POST');
      expect(call.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(call.headers['x-env']).toBe('blue');
      expect(JSON.parse(call.body)).toEqual({ secret: SECRET, env: 'blue' });
      expect(call.key).toMatch(/^rbk_/);
    }
    expect(new Set(calls.map((c) => c.key)).size).toBe(2);

    const [execution] = await executions(rb, call1);
    expect(execution?.attributes).toMatchObject({ outcome: 'succeeded', sent: true, response_status: 200, attempt: 1 });
    expect(execution?.attributes.request_line).toBe(`POST ${receiver.url}/hooks/blue?token=••••`);
    expect(execution?.attributes.request_headers).toContainEqual({ name: 'Authorization', value: 'Bearer ••••' });
    expect(String(execution?.attributes.response_excerpt)).toContain('Bearer ••••');
    const recorded = JSON.stringify(await executions(rb, call1));
    for (const form of [SECRET, JSON.stringify(SECRET).slice(1, -1), encodeURIComponent(SECRET)])
      expect(recorded).not.toContain(form);

    expect((await getRunbook(rb)).attributes.stage).toBe('active');
    await ok('PATCH', `/core/runbooks/${rb}/tasks/${verify}/start`);
    await ok('PATCH', `/core/runbooks/${rb}/tasks/${verify}/finish`);
    const closed = await getTask(rb, close);
    expect(closed.attributes).toMatchObject({ stage: 'complete', completion_type: 'complete_auto' });
    expect((await getRunbook(rb)).attributes.stage).toBe('complete');

    const events = await ok('GET', `/core/runbooks/${rb}/events?page[size]=100`);
    const kinds = events.data.map((e: { attributes: { kind: string } }) => e.attributes.kind);
    expect(kinds[0]).toBe('runbook_started');
    expect(kinds.at(-1)).toBe('runbook_completed');
    const byHand = events.data.find(
      (e: { attributes: { kind: string }; relationships: { task: { data: { id: string } | null } } }) =>
        e.attributes.kind === 'task_completed' && e.relationships.task.data?.id === prepare,
    );
    expect(byHand.attributes.actor.type).toBe('user');
  });

  it('uses a changed parameter value in the next run with no edit to the integration, and lists where it is used', async () => {
    const ping = await integration({
      name: 'Ping env',
      method: 'GET',
      url: '{{system.rcv_base}}/ping/{{system.rcv_env}}',
    });
    const runOnce = async () => {
      const rb = await runbook('Ping run');
      const id = await task(rb, 'Ping', { integration: ping, auto_start: true });
      await ok('PATCH', `/core/runbooks/${rb}/start`);
      await waitFor(
        () => getRunbook(rb),
        (r) => r.attributes.stage === 'complete',
      );
      return id;
    };
    const pingTask = await runOnce();
    await ok('PATCH', '/core/system_parameters/rcv_env', {
      data: { type: 'system_parameter', attributes: { value: 'green' } },
    });
    await runOnce();
    expect(receiver.requests.filter((r) => r.path.startsWith('/ping/')).map((r) => r.path)).toEqual([
      '/ping/blue',
      '/ping/green',
    ]);

    const usages = await ok('GET', '/core/system_parameters/rcv_env/usages');
    expect(usages.data.type).toBe('system_parameter_usages');
    expect(usages.data.attributes.integrations.map((i: { id: string }) => i.id)).toContain(ping);
    expect(usages.data.attributes.tasks.map((t: { id: string }) => t.id)).toContain(pingTask);
    expect((await api('GET', '/core/system_parameters/no_such_param/usages')).status).toBe(404);
  });

  it('fails an execution on a missing parameter with a clear error, sends nothing, and stops at the retry limit', async () => {
    await parameter('rcv_short_lived', 'x', false);
    const doomed = await integration({
      name: 'Short-lived',
      url: '{{system.rcv_base}}/short/{{system.rcv_short_lived}}',
    });
    expect((await api('DELETE', '/core/system_parameters/rcv_short_lived')).status).toBe(204);
    const rb = await runbook('Missing parameter');
    const id = await task(rb, 'Call', { integration: doomed, auto_start: true });
    await ok('PATCH', `/core/runbooks/${rb}/start`);
    const failed = await waitFor(
      () => getTask(rb, id),
      (t) => t.attributes.execution_status === 'failed',
    );
    expect(failed.attributes.stage).toBe('in_progress');
    expect(failed.attributes.last_error).toContain('rcv_short_lived');
    const attempts = await executions(rb, id);
    expect(attempts.map((e) => e.attributes.attempt)).toEqual([1, 2]);
    for (const e of attempts) {
      expect(e.attributes).toMatchObject({ outcome: 'failed', sent: false, error_code: 'unknown_system_parameters' });
      expect(String(e.attributes.error_detail)).toContain('rcv_short_lived');
    }
    expect(receiver.requests.filter((r) => r.path.startsWith('/short/'))).toEqual([]);

    // Saving a template with unknown parameters is refused up front, naming them.
    const refused = await api('POST', '/core/integrations', {
      data: {
        type: 'integration',
        attributes: { name: 'Refused', url: '{{system.rcv_base}}/{{system.nope_a}}/{{system.nope_b}}' },
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({
      code: 'unknown_system_parameters',
      meta: { missing: ['nope_a', 'nope_b'] },
    });
    // The human's way out: skip with a comment.
    const skipped = await ok('PATCH', `/core/runbooks/${rb}/tasks/${id}/skip`, {
      meta: { comment: 'parameter retired' },
    });
    expect(skipped.data.attributes.completion_type).toBe('complete_skipped');
    expect((await api('PATCH', `/core/runbooks/${rb}/tasks/${id}/skip`, { meta: {} })).status).toBe(422);
  });

  it('validates custom field values (references checked, none in temporary credentials) and assignees', async () => {
    const field = (
      await ok('POST', '/core/custom_fields', {
        data: { type: 'custom_field', attributes: { name: 'Vault login', field_type: 'temporary_credentials' } },
      })
    ).data.id;
    const rb = await runbook('Fields');
    const refused = await api('POST', `/core/runbooks/${rb}/tasks`, {
      data: {
        type: 'task',
        attributes: {
          name: 'Login',
          custom_field_values: [{ custom_field_id: field, value: 'admin:{{system.rcv_token}}' }],
        },
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].code).toBe('temporary_credentials_not_allowed');
    expect(refused.body.errors[0].detail).toMatch(/system parameters/);
    const accepted = await ok('POST', `/core/runbooks/${rb}/tasks`, {
      data: {
        type: 'task',
        attributes: { name: 'Login', custom_field_values: [{ custom_field_id: field, value: 'admin:abc' }] },
      },
    });
    expect(accepted.data.attributes.custom_field_values).toEqual([{ custom_field_id: field, value: 'admin:abc' }]);
    // Assignees are checked with identity: unknown users and teams are a 422.
    const me = (await ok('GET', '/core/me')).data.id;
    const assignees = (data: Array<{ id: string; type: string }>) =>
      api('PATCH', `/core/runbooks/${rb}/tasks/${accepted.data.id}`, {
        data: { type: 'task', attributes: {}, relationships: { assignees: { data } } },
      });
    const unknown = await assignees([
      { id: me, type: 'user' },
      { id: '999999', type: 'team' },
    ]);
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({
      code: 'invalid_assignees',
      meta: { invalid: [{ type: 'team', id: '999999' }] },
    });
    const assigned = await assignees([{ id: me, type: 'user' }]);
    expect(assigned.body.data.relationships.assignees.data).toEqual([{ id: me, type: 'user' }]);
    const comment = await ok('POST', `/core/runbooks/${rb}/tasks/${accepted.data.id}/comments`, {
      data: { type: 'comment', attributes: { body: 'Credentials rotated' } },
    });
    expect(comment.data.attributes).toMatchObject({ body: 'Credentials rotated', author: { type: 'user' } });
  });

  it('finishes what was in flight after the catalog is killed, without losing or repeating a call', async () => {
    const step = await integration({ name: 'Chained step', url: '{{system.rcv_base}}/chain/{{system.rcv_env}}' });
    const rb = await runbook('Survives a crash');
    const a = await task(rb, 'A', { integration: step, auto_start: true });
    const b = await task(rb, 'B', { predecessors: [a], integration: step, auto_start: true });
    const c = await task(rb, 'C', { predecessors: [b], integration: step, auto_start: true });
    receiver.state.holdFirst.add('/chain/');
    const chain = () => receiver.requests.filter((r) => r.path.startsWith('/chain/'));

    await ok('PATCH', `/core/runbooks/${rb}/start`);
    await waitFor(
      async () => chain().length,
      (n) => n === 1,
    );
    // A's request reached the receiver (its effect is applied) but the answer never gets back: kill.
    await platform.restart('catalog', 'SIGKILL');

    await waitFor(
      () => getRunbook(rb),
      (r) => r.attributes.stage === 'complete',
      30_000,
    );
    const keys = chain().map((r) => r.key);
    const [keyA] = keys;
    expect(chain().map((r) => r.replay)).toEqual([false, true, false, false]);
    expect(keys[1]).toBe(keyA);
    expect(new Set(keys).size).toBe(3);
    for (const key of new Set(keys)) expect(receiver.effects.get(key)).toBe(1);
    for (const id of [a, b, c]) expect((await getTask(rb, id)).attributes.completion_type).toBe('complete_auto');
    expect((await executions(rb, a)).map((e) => e.attributes.outcome)).toEqual(['interrupted', 'succeeded']);
    expect((await executions(rb, b)).map((e) => e.attributes.outcome)).toEqual(['succeeded']);
  });
});
