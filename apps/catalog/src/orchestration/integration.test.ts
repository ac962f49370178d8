import { AppError } from '@runbook/contracts';
import { createDb } from '@runbook/db';
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import {
  appErrorOf,
  type CatalogCaller,
  type CatalogTestKit,
  codeOf,
  createCatalogTestKit,
  startReceiver,
  type TestReceiver,
} from '../test-support.js';
import { runJob } from './job-worker.js';
import { claimJobs } from './jobs.repository.js';

/** A secret with characters every encoding changes: quotes, slash, plus, space, non-ASCII. */
const SECRET = 'tok "s3cr/t"+ü=1';

describe.each(await testDialects())('integration tasks on %s', (dialect) => {
  let kit: CatalogTestKit;
  let receiver: TestReceiver;
  let admin: CatalogCaller;
  let developer: CatalogCaller;
  let ws: string;
  let integrationId: string;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
    receiver = await startReceiver();
    admin = kit.as(['developer', 'workspace_manager', 'integrations_admin']);
    developer = kit.as(['developer']);
    ws = (await admin.workspaces.create({ name: 'Integrations' })).id;
    kit.secrets.set('hook_base', receiver.url, false);
    kit.secrets.set('hook_token', SECRET);
    kit.secrets.set('hook_env', 'staging', false);
    integrationId = (
      await admin.integrations.create({
        name: 'Notify',
        url: '{{system.hook_base}}/hooks/{{system.hook_env}}?k={{ system.hook_token }}',
        headers: [
          { name: 'Authorization', value: 'Bearer {{system.hook_token}}' },
          { name: 'X-Env', value: '{{system.hook_env}}' },
        ],
        body: '{"token": "{{system.hook_token}}", "env": "{{system.hook_env}}", "n": 1}',
      })
    ).id;
  });
  afterAll(async () => {
    await receiver.close();
    await kit.destroy();
  });
  beforeEach(async () => {
    // Each test starts with no job waiting from an earlier one.
    await kit.deps.db
      .updateTable('jobs')
      .set({ state: 'canceled' })
      .where('state', 'in', ['queued', 'parked'])
      .execute();
    receiver.requests.length = 0;
    receiver.respond = (req) => ({ status: 200, body: JSON.stringify({ echo: req }) });
  });

  /** A started runbook with one auto-start integration task (and optional extra fields). */
  const runOne = async (extra: { integration_id?: string; auto_start?: boolean } = {}) => {
    const rb = (await admin.runbooks.create({ workspace_id: ws, name: 'Integration run' })).id;
    const t = await admin.tasks.create({
      runbook_id: rb,
      name: 'Call',
      integration_id: extra.integration_id ?? integrationId,
      auto_start: extra.auto_start ?? true,
    });
    await admin.runbooks.start({ id: rb });
    return { rb, id: t.id, ref: { runbook_id: rb, id: t.id } };
  };
  const taskOf = (ref: { runbook_id: string; id: string }) => developer.tasks.get(ref);
  const executionsOf = async (ref: { runbook_id: string; id: string }) =>
    (await developer.tasks.executions({ ...ref, page: { size: 100 } })).items;

  it('validates templates when an integration is saved', async () => {
    const missing = await appErrorOf(
      admin.integrations.create({
        name: 'Broken',
        url: '{{system.nope_base}}/x',
        headers: [{ name: 'X-Key', value: '{{system.nope_key}}' }],
      }),
    );
    expect(missing).toMatchObject({ status: 422, code: 'unknown_system_parameters' });
    expect(missing.errors[0]?.meta).toEqual({ missing: ['nope_base', 'nope_key'] });
    expect(missing.message).toContain('nope_base, nope_key');

    const badBody = await appErrorOf(admin.integrations.create({ name: 'Bad', url: 'https://x.test', body: '{"a": ' }));
    expect(badBody).toMatchObject({ code: 'invalid_template' });
    expect(badBody.errors[0]?.source).toEqual({ pointer: '/data/attributes/body' });
    const reserved = await appErrorOf(
      admin.integrations.create({
        name: 'Bad',
        url: 'https://x.test',
        headers: [{ name: 'Idempotency-Key', value: 'mine' }],
      }),
    );
    expect(reserved.errors[0]).toMatchObject({
      code: 'reserved_header',
      source: { pointer: '/data/attributes/headers/0/name' },
    });
    expect((await appErrorOf(admin.integrations.create({ name: 'Bad', url: 'ftp://x.test' }))).code).toBe(
      'invalid_url',
    );
    expect((await appErrorOf(admin.integrations.create({ name: 'Notify', url: 'https://x.test' }))).code).toBe(
      'name_taken',
    );
    expect(await codeOf(developer.integrations.create({ name: 'Nope', url: 'https://x.test' }))).toBe('FORBIDDEN');
    expect(await codeOf(developer.integrations.get({ id: integrationId }))).toBe('ok');
  });

  it('resolves, sends, records with secrets masked and completes the task (complete_auto)', async () => {
    receiver.respond = (req) => ({
      status: 201,
      body: JSON.stringify({
        echo: req.headers.authorization,
        b64: Buffer.from(SECRET).toString('base64'),
        basic: Buffer.from(`user:${SECRET}`).toString('base64'),
        url: encodeURIComponent(SECRET),
      }),
    });
    const wakeups = kit.wakeups.count;
    const { ref } = await runOne();
    expect(kit.wakeups.count).toBeGreaterThan(wakeups);
    expect(await taskOf(ref)).toMatchObject({ stage: 'in_progress', execution_status: 'queued' });
    expect(receiver.requests).toHaveLength(0);

    expect(await kit.worker.runDue()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const seen = receiver.requests[0];
    expect(seen?.method).toBe('POST');
    const expectedUrl = new URL(`${receiver.url}/hooks/staging?k=${SECRET}`);
    expect(seen?.url).toBe(`${expectedUrl.pathname}${expectedUrl.search}`);
    expect(seen?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(seen?.headers['x-env']).toBe('staging');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers['idempotency-key']).toMatch(/^rbk_[0-9a-f-]{36}$/);
    expect(JSON.parse(seen?.body ?? '')).toEqual({ token: SECRET, env: 'staging', n: 1 });

    expect(await taskOf(ref)).toMatchObject({
      stage: 'complete',
      completion_type: 'complete_auto',
      execution_status: 'succeeded',
      last_error: null,
    });
    const [execution] = await executionsOf(ref);
    expect(execution).toMatchObject({
      attempt: 1,
      outcome: 'succeeded',
      sent: true,
      response_status: 201,
      idempotency_key: seen?.headers['idempotency-key'],
      integration_id: integrationId,
    });
    expect(execution?.request_line).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/hooks\/staging\?k=••••$/);
    expect(execution?.request_headers).toContainEqual({ name: 'Authorization', value: 'Bearer ••••' });
    expect(execution?.request_headers).toContainEqual({ name: 'X-Env', value: 'staging' });
    expect(execution?.duration_ms).toBeGreaterThanOrEqual(0);
    const recorded = JSON.stringify(execution);
    const jsonEscaped = JSON.stringify(SECRET).slice(1, -1);
    for (const form of [
      SECRET,
      jsonEscaped,
      JSON.stringify(jsonEscaped).slice(1, -1),
      encodeURIComponent(SECRET),
      Buffer.from(SECRET).toString('base64'),
      Buffer.from(`user:${SECRET}`).toString('base64').slice(8, 20),
    ]) {
      expect(recorded).not.toContain(form);
    }
    expect(execution?.response_excerpt).toContain('••••');

    const inUse = await appErrorOf(admin.integrations.delete({ id: integrationId }));
    expect(inUse).toMatchObject({ status: 409, code: 'integration_in_use' });
    expect(inUse.errors[0]?.meta).toEqual({ task_ids: [ref.id] });
  });

  it('retries failures with exponential backoff, then marks the task failed for a human', async () => {
    let status = 503;
    receiver.respond = () => ({ status, body: `{"error": "down", "token": "${SECRET}"}` });
    const { ref } = await runOne();
    const t0 = kit.clock.now;
    await kit.worker.runDue();
    let t = await taskOf(ref);
    expect(t).toMatchObject({ stage: 'in_progress', execution_status: 'retrying' });
    expect(t.last_error).toContain('unexpected_status');
    expect(t.last_error).not.toContain(SECRET);
    // Not due before the backoff delay (1 s, then 2 s).
    expect(await kit.worker.runDue()).toBe(0);
    kit.clock.now = t0 + 1000;
    expect(await kit.worker.runDue()).toBe(1);
    kit.clock.now = t0 + 2999;
    expect(await kit.worker.runDue()).toBe(0);
    kit.clock.now = t0 + 3000;
    expect(await kit.worker.runDue()).toBe(1);
    t = await taskOf(ref);
    expect(t).toMatchObject({ stage: 'in_progress', execution_status: 'failed' });
    const executions = await executionsOf(ref);
    expect(executions.map((e) => [e.attempt, e.outcome, e.response_status])).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
      [3, 'failed', 503],
    ]);
    expect(new Set(executions.map((e) => e.idempotency_key)).size).toBe(1);
    expect(JSON.stringify(executions)).not.toContain(SECRET);
    const failed = (await developer.runbooks.events({ id: ref.runbook_id, task_id: ref.id, page: {} })).items.at(-1);
    expect(failed).toMatchObject({ kind: 'task_execution_failed', actor: { type: 'system' } });

    // A human retries by starting the task again: a new job with a new Idempotency-Key.
    status = 200;
    expect((await admin.tasks.start(ref)).execution_status).toBe('queued');
    await kit.worker.runDue();
    expect(await taskOf(ref)).toMatchObject({ stage: 'complete', completion_type: 'complete_auto' });
    const all = await executionsOf(ref);
    expect(all).toHaveLength(4);
    expect(all[3]?.idempotency_key).not.toBe(all[0]?.idempotency_key);
  });

  it('fails the execution on a missing parameter without sending anything, and uses changed values next time', async () => {
    kit.secrets.set('gone_soon', 'v1', false);
    const temp = await admin.integrations.create({
      name: 'Uses a parameter that disappears',
      url: '{{system.hook_base}}/gone/{{system.gone_soon}}',
    });
    kit.secrets.params.delete('gone_soon');
    const { ref } = await runOne({ integration_id: temp.id });
    await kit.worker.runDue();
    expect(receiver.requests).toHaveLength(0);
    const [execution] = await executionsOf(ref);
    expect(execution).toMatchObject({
      outcome: 'failed',
      sent: false,
      response_status: null,
      error_code: 'unknown_system_parameters',
      request_line: 'POST {{system.hook_base}}/gone/{{system.gone_soon}}',
    });
    expect(execution?.error_detail).toContain('gone_soon');
    expect((await taskOf(ref)).execution_status).toBe('retrying');

    // The parameter comes back with a new value: the very next attempt uses it.
    kit.secrets.set('gone_soon', 'v2', false);
    kit.clock.now += 60_000;
    await kit.worker.runDue();
    expect(receiver.requests.map((r) => r.url)).toEqual(['/gone/v2']);
    kit.secrets.set('gone_soon', 'v3', false);
    const second = await runOne({ integration_id: temp.id });
    await kit.worker.runDue();
    expect(receiver.requests.map((r) => r.url)).toEqual(['/gone/v2', '/gone/v3']);
    expect((await taskOf(second.ref)).stage).toBe('complete');
  });

  it('records timeouts and network errors as failures', async () => {
    const slow = await admin.integrations.create({
      name: 'Slow',
      url: '{{system.hook_base}}/slow',
      timeout_ms: 100,
    });
    receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: '{}' }), 400));
    const { ref } = await runOne({ integration_id: slow.id });
    await kit.worker.runDue();
    expect((await executionsOf(ref))[0]).toMatchObject({ outcome: 'failed', error_code: 'timeout', sent: true });

    kit.secrets.set('closed_port_base', 'http://127.0.0.1:1', false);
    const closed = await admin.integrations.create({ name: 'Nowhere', url: '{{system.closed_port_base}}/x' });
    const other = await runOne({ integration_id: closed.id });
    await kit.worker.runDue();
    expect((await executionsOf(other.ref))[0]).toMatchObject({ outcome: 'failed', error_code: 'network_error' });
  });

  it('counts configured statuses as success', async () => {
    const accepted = await admin.integrations.create({
      name: 'Accepts 404',
      url: '{{system.hook_base}}/maybe',
      success_statuses: [404],
    });
    receiver.respond = () => ({ status: 404, body: '{}' });
    const { ref } = await runOne({ integration_id: accepted.id });
    await kit.worker.runDue();
    expect((await taskOf(ref)).completion_type).toBe('complete_auto');
  });

  it('parks executions while paused, cancels them with the run or a manual finish', async () => {
    const { rb, ref } = await runOne();
    await admin.runbooks.pause({ id: rb });
    await kit.worker.runDue();
    expect(receiver.requests).toHaveLength(0);
    await admin.runbooks.resume({ id: rb });
    await kit.worker.runDue();
    expect(receiver.requests).toHaveLength(1);
    expect((await taskOf(ref)).stage).toBe('complete');

    const byHand = await runOne();
    await admin.tasks.finish(byHand.ref);
    await kit.worker.runDue();
    expect(await taskOf(byHand.ref)).toMatchObject({ completion_type: 'complete_normal' });
    const canceled = await runOne();
    await admin.runbooks.cancel({ id: canceled.rb });
    await kit.worker.runDue();
    expect(receiver.requests).toHaveLength(1);
    expect((await taskOf(canceled.ref)).stage).toBe('in_progress');
  });

  it('re-runs a job whose worker died mid-request with the same Idempotency-Key, and records it once', async () => {
    let release: (() => void) | null = null;
    let firstCall = true;
    // The first worker's request reaches the receiver, but its response never comes back: the worker "dies".
    const stuckDeps = {
      ...kit.deps,
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        const response = await kit.deps.fetch(input, init);
        if (!firstCall) return response;
        firstCall = false;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return response;
      }) as typeof fetch,
    };
    const { ref } = await runOne();
    const [claimed] = await claimJobs(kit.deps.db, 'doomed-worker', kit.clock.now, kit.deps.orchestration.leaseMs, 1);
    expect(claimed).toBeDefined();
    const doomed = runJob(stuckDeps, claimed as NonNullable<typeof claimed>);
    await expect.poll(() => receiver.requests.length, { timeout: 5000 }).toBe(1);
    expect((await executionsOf(ref))[0]?.outcome).toBe('in_flight');

    // While the lease holds, nobody else takes the job.
    expect(await kit.worker.runDue()).toBe(0);
    kit.clock.now += kit.deps.orchestration.leaseMs + 1;
    expect(await kit.worker.runDue()).toBe(1);
    expect(receiver.requests).toHaveLength(2);
    const [k1, k2] = receiver.requests.map((r) => r.headers['idempotency-key']);
    expect(k2).toBe(k1);
    expect(receiver.effects.get(String(k1))).toBe(1);
    expect(await taskOf(ref)).toMatchObject({ stage: 'complete', completion_type: 'complete_auto' });
    expect((await executionsOf(ref)).map((e) => [e.attempt, e.outcome])).toEqual([
      [1, 'interrupted'],
      [2, 'succeeded'],
    ]);

    // The old worker wakes up: its lease is gone, so it records nothing over the new result.
    (release as (() => void) | null)?.();
    await doomed;
    const events = await developer.runbooks.events({ id: ref.runbook_id, task_id: ref.id, page: {} });
    expect(events.items.filter((e) => e.kind === 'task_completed')).toHaveLength(1);
    expect((await executionsOf(ref)).map((e) => e.outcome)).toEqual(['interrupted', 'succeeded']);
  });

  it('never hands one job to two workers (concurrent claims, separate connections)', async () => {
    const rb = (await admin.runbooks.create({ workspace_id: ws, name: 'Many' })).id;
    for (let i = 0; i < 30; i++)
      await admin.tasks.create({ runbook_id: rb, name: `c${i}`, integration_id: integrationId, auto_start: true });
    await admin.runbooks.start({ id: rb });
    const other =
      dialect === 'mysql' ? createDb<Database>({ dialect: 'mysql', url: kit.location, poolSize: 5 }) : kit.deps.db;
    try {
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => claimJobs(i % 2 ? other : kit.deps.db, `w${i}`, kit.clock.now, 60_000, 5)),
      );
      const ids = claims.flat().map((j) => j.id);
      expect(ids.length).toBe(30);
      expect(new Set(ids).size).toBe(30);
      expect(await claimJobs(other, 'late', kit.clock.now, 60_000, 5)).toEqual([]);
    } finally {
      if (other !== kit.deps.db) await other.destroy();
    }
    kit.clock.now += 60_001;
    await kit.worker.runDue();
    expect((await developer.runbooks.get({ id: rb })).stage).toBe('complete');
  });

  it('surfaces an unreachable secrets service as a retried failure', async () => {
    kit.secrets.failWith = new AppError(503, 'secrets_unavailable', 'The secrets service is unavailable.');
    try {
      const { ref } = await runOne();
      await kit.worker.runDue();
      expect((await executionsOf(ref))[0]).toMatchObject({ error_code: 'secrets_unavailable', sent: false });
      expect(
        (await appErrorOf(admin.integrations.create({ name: 'While down', url: 'https://x.test/{{system.hook_env}}' })))
          .status,
      ).toBe(503);
    } finally {
      kit.secrets.failWith = null;
    }
  });
});
