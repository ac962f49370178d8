/**
 * End to end: the four real services as separate processes on ephemeral loopback ports, driven over
 * HTTP through the gateway's REST API (and its tRPC endpoint through @runbook/client). Runs on the
 * embedded default (SQLite, in-process caches) and on MySQL + Redis.
 */
import { createRunbookClient } from '@runbook/client';
import { testDialects } from '@runbook/db/testing';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, callWithOversizedBody, startTestPlatform, type TestPlatform } from './support/platform.js';

describe.each(await testDialects())('platform end to end on %s', (dialect) => {
  let platform: TestPlatform;
  let base: string;
  let token: string;
  let api: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse>;

  beforeAll(async () => {
    platform = await startTestPlatform(dialect);
    base = platform.base;
    token = platform.adminToken;
    api = platform.as(token);
  });

  afterAll(() => platform?.stop());

  it('walks the README flow: workspace, runbook, tasks, list, get, system parameter, preview', async () => {
    const ws = await api('POST', '/core/workspaces', {
      data: { type: 'workspace', attributes: { name: 'Payments', key: 'PAY' } },
    });
    expect(ws.status).toBe(201);
    expect(ws.body.data).toMatchObject({ type: 'workspace', attributes: { name: 'Payments', key: 'PAY' } });
    expect(typeof ws.body.data.id).toBe('string');

    const rb = await api(
      'POST',
      '/core/runbooks',
      {
        data: {
          type: 'runbook',
          attributes: { name: 'Failover', description: 'Move the primary' },
          relationships: { workspace: { data: { id: ws.body.data.id, type: 'workspace' } } },
        },
      },
      { 'content-type': 'application/vnd.api+json' },
    );
    expect(rb.status).toBe(201);
    expect(rb.body.data.attributes.stage).toBe('planning');
    const runbookId = rb.body.data.id;

    const t1 = await api('POST', `/core/runbooks/${runbookId}/tasks`, {
      data: { type: 'task', attributes: { name: 'Stop writes', duration: 60 } },
    });
    expect(t1.status).toBe(201);
    const t2 = await api('POST', `/core/runbooks/${runbookId}/tasks`, {
      data: {
        type: 'task',
        attributes: { name: 'Promote standby' },
        relationships: { predecessors: { data: [{ id: t1.body.data.id, type: 'task' }] } },
      },
    });
    expect(t2.status).toBe(201);
    expect(t2.body.data.relationships.predecessors.data).toEqual([{ id: t1.body.data.id, type: 'task' }]);

    const cycle = await api('PATCH', `/core/runbooks/${runbookId}/tasks/${t1.body.data.id}`, {
      data: {
        type: 'task',
        attributes: {},
        relationships: { predecessors: { data: [{ id: t2.body.data.id, type: 'task' }] } },
      },
    });
    expect(cycle.status).toBe(422);
    expect(cycle.body.errors[0].code).toBe('predecessor_cycle');

    const list = await api('GET', `/core/runbooks?workspace_id=${ws.body.data.id}&page[size]=10`);
    expect(list.status).toBe(200);
    expect(list.body.meta.page).toMatchObject({ number: 1, size: 10, total: 1 });
    expect(list.body.data[0]).toMatchObject({ id: runbookId, type: 'runbook' });
    expect(list.headers.get('api-version')).toBe('2026-11-21');

    const task = await api('GET', `/core/runbooks/${runbookId}/tasks/${t2.body.data.id}`);
    expect(task.status).toBe(200);
    expect(task.body.data.attributes).toMatchObject({ name: 'Promote standby', stage: 'not_startable' });

    const param = await api('POST', '/core/system_parameters', {
      data: { type: 'system_parameter', attributes: { name: 'payments_api_key', value: 'sk_live_e2e_secret_value' } },
    });
    expect(param.status).toBe(201);
    expect(param.body.data.attributes).toMatchObject({
      name: 'payments_api_key',
      secret: true,
      value: null,
      version: 1,
    });
    const base_url = await api('POST', '/core/system_parameters', {
      data: {
        type: 'system_parameter',
        attributes: { name: 'payments_base_url', value: 'https://pay.example.com', secret: false },
      },
    });
    expect(base_url.body.data.attributes.value).toBe('https://pay.example.com');

    const preview = await api('POST', '/core/system_parameters/preview', {
      data: { template: '{{system.payments_base_url}}/charge?key={{ system.payments_api_key }}', context: 'text' },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.data.result).toBe('https://pay.example.com/charge?key=••••');
    expect(preview.body.data.missing).toEqual([]);
    expect(JSON.stringify(preview.body)).not.toContain('sk_live_e2e_secret_value');

    const missing = await api('POST', '/core/system_parameters/preview', {
      data: { template: '{{system.nope}} {{system.nada}}' },
    });
    expect(missing.body.data.missing.sort()).toEqual(['nada', 'nope']);

    const got = await api('GET', '/core/system_parameters/payments_api_key');
    expect(got.body.data.attributes.value).toBeNull();
    expect(JSON.stringify(got.body)).not.toContain('sk_live_e2e_secret_value');

    const deleted = await api('DELETE', `/core/runbooks/${runbookId}/tasks/${t2.body.data.id}`);
    expect(deleted.status).toBe(204);
    expect((await api('GET', `/core/runbooks/${runbookId}/tasks/${t2.body.data.id}`)).status).toBe(404);
  });

  it('pages through runbooks with links.next (keyset) and page[number]', async () => {
    const ws = await api('POST', '/core/workspaces', { data: { type: 'workspace', attributes: { name: 'Paging' } } });
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      const r = await api('POST', '/core/runbooks', {
        data: {
          type: 'runbook',
          attributes: { name: `rb ${String(i).padStart(2, '0')}` },
          relationships: { workspace: { data: { id: ws.body.data.id, type: 'workspace' } } },
        },
      });
      ids.push(r.body.data.id);
    }
    const seen: string[] = [];
    let next: string | undefined = `${base}/core/runbooks?workspace_id=${ws.body.data.id}&sort=-name&page[size]=5`;
    let pages = 0;
    while (next) {
      const res = await fetch(next, { headers: { authorization: `Bearer ${token}` } });
      const doc = (await res.json()) as {
        data: Array<{ id: string }>;
        links: { next?: string };
        meta: { page: { total: number } };
      };
      expect(doc.meta.page.total).toBe(23);
      seen.push(...doc.data.map((d) => d.id));
      next = doc.links.next;
      pages++;
    }
    expect(pages).toBe(5);
    expect(seen).toEqual([...ids].reverse());
    const third = await api('GET', `/core/runbooks?workspace_id=${ws.body.data.id}&page[number]=3&page[size]=5`);
    expect(third.body.data.map((d: { id: string }) => d.id)).toEqual(ids.slice(10, 15));
    expect(third.body.links.prev).toContain('page[number]=2');
    const bad = await api('GET', '/core/runbooks?page[after]=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe('invalid_cursor');
  });

  it('answers client mistakes with the documented error document, never a 500', async () => {
    const noToken = await fetch(`${base}/core/runbooks`);
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toEqual({
      errors: [expect.objectContaining({ status: '401', code: 'unauthorized', title: 'Unauthorized' })],
    });
    expect((await api('GET', '/core/runbooks', undefined, { authorization: 'Token abc' })).status).toBe(401);
    expect(
      (await api('GET', '/core/runbooks', undefined, { authorization: `Bearer rbt_${'0'.repeat(72)}` })).status,
    ).toBe(401);

    const notFound = await api('GET', '/core/runbooks/999999');
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({ errors: [expect.objectContaining({ code: 'not_found' })] });

    const invalid = await api('POST', '/core/workspaces', { data: { type: 'workspace', attributes: { name: '' } } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors[0]).toMatchObject({
      code: 'validation_failed',
      source: { pointer: '/data/attributes/name' },
    });
    expect(Object.keys(invalid.body)).toEqual(['errors']);

    const wrongBool = await api('POST', '/core/system_parameters', {
      data: { type: 'system_parameter', attributes: { name: 'flag_param', value: 'x', secret: 'false' } },
    });
    expect(wrongBool.status).toBe(422);

    const badJson = await api('POST', '/core/workspaces', '{"data": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.errors[0].code).toBe('bad_request');

    const tooLarge = await callWithOversizedBody(base, token, 'POST', '/core/workspaces', 2_000_000);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.errors[0].code).toBe('payload_too_large');

    const unknownRoute = await api('GET', '/core/nothing-here');
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.body.errors[0].code).toBe('not_found');

    const badVersion = await api('GET', '/core/runbooks', undefined, { 'api-version': 'yesterday' });
    expect(badVersion.status).toBe(400);
    expect(badVersion.body.errors[0].code).toBe('unsupported_api_version');

    const dupe = await api('POST', '/core/system_parameters', {
      data: { type: 'system_parameter', attributes: { name: 'dupe_param', value: 'a' } },
    });
    expect(dupe.status).toBe(201);
    const again = await api('POST', '/core/system_parameters', {
      data: { type: 'system_parameter', attributes: { name: 'dupe_param', value: 'b' } },
    });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('name_taken');
  });

  it('enforces roles: developer needed for any call, role needed for writes', async () => {
    const me = await api('GET', '/core/me');
    const created = await api('POST', '/core/users', {
      data: {
        type: 'user',
        attributes: {
          first_name: 'Dee',
          last_name: 'Veloper',
          email: `dev-${dialect}@example.com`,
          roles: [{ role: 'developer', workspace_id: null }],
        },
      },
    });
    expect(created.status).toBe(201);
    const devToken = await api('POST', `/core/users/${created.body.data.id}/user_app_tokens`, {
      data: { type: 'user_app_token', attributes: { label: 'dev' } },
    });
    expect(devToken.status).toBe(201);
    const plaintext: string = devToken.body.meta.token;
    expect(plaintext).toMatch(/^rbt_/);
    const asDev = (method: string, path: string, body?: unknown) =>
      api(method, path, body, { authorization: `Bearer ${plaintext}` });
    expect((await asDev('GET', '/core/runbooks')).status).toBe(200);
    const denied = await asDev('POST', '/core/workspaces', {
      data: { type: 'workspace', attributes: { name: 'Nope' } },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0].code).toBe('forbidden');
    expect(
      (
        await asDev('POST', '/core/system_parameters', {
          data: { type: 'system_parameter', attributes: { name: 'nope', value: 'x' } },
        })
      ).status,
    ).toBe(403);
    expect((await asDev('GET', `/core/users/${me.body.data.id}/user_app_tokens`)).status).toBe(403);

    const noRole = await api('POST', '/core/users', {
      data: {
        type: 'user',
        attributes: { first_name: 'No', last_name: 'Role', email: `norole-${dialect}@example.com` },
      },
    });
    const noRoleToken = await api('POST', `/core/users/${noRole.body.data.id}/user_app_tokens`, {
      data: { type: 'user_app_token', attributes: { label: 'x' } },
    });
    expect(
      (await api('GET', '/core/runbooks', undefined, { authorization: `Bearer ${noRoleToken.body.meta.token}` }))
        .status,
    ).toBe(403);

    const revoked = await api('DELETE', `/core/users/${created.body.data.id}/user_app_tokens/${devToken.body.data.id}`);
    expect(revoked.status).toBe(204);
    await new Promise((r) => setTimeout(r, 1100)); // the documented revocation bound (auth cache TTL 1 s)
    expect((await asDev('GET', '/core/runbooks')).status).toBe(401);
  });

  it('serves every route in the OpenAPI document and the same router over tRPC', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toMatch(/^3\.1/);
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const op of [
      'GET /core/runbooks',
      'POST /core/runbooks',
      'GET /core/runbooks/{runbook_id}/tasks/{id}',
      'POST /core/runbooks/{runbook_id}/tasks',
      'GET /core/workspaces',
      'POST /core/workspaces',
      'GET /core/system_parameters',
      'POST /core/system_parameters',
      'POST /core/system_parameters/preview',
    ]) {
      expect(ops).toContain(op);
    }

    const client = createRunbookClient({ url: base, token });
    const runbooks = await client.runbooks.list.query({ 'page[size]': 2 });
    expect(runbooks.meta.page.size).toBe(2);
    try {
      await client.runbooks.get.query({ id: '999999' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TRPCClientError);
      expect((error as TRPCClientError<never>).shape).toMatchObject({ errors: [{ code: 'not_found' }] });
    }
  });

  it('reports readiness of every service', async () => {
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ checks: { identity: true, catalog: true, secrets: true } });
  });
});
