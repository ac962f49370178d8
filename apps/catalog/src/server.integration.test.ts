import { testDialects } from '@runbook/db/testing';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogClient } from './client.js';
import { createServer } from './server.js';
import { type CatalogTestKit, createCatalogTestKit } from './test-support.js';

describe.each(await testDialects())('catalog over HTTP on %s', (dialect) => {
  let kit: CatalogTestKit;
  let server: Awaited<ReturnType<typeof createServer>>;
  let url: string;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
    server = await createServer(kit.deps);
    url = await server.start({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    // The kit owns the database (and drops it on MySQL); close only the HTTP side here.
    await server.app.close();
    await kit.destroy();
  });

  it('answers health and readiness', async () => {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok', service: 'catalog' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ checks: { database: true } });
  });

  it('serves the typed client with the caller\u2019s bearer credential and coded errors', async () => {
    const client = createCatalogClient(url, kit.userWith(['developer', 'workspace_manager']));
    const ws = await client.workspaces.create.mutate({ name: 'Over HTTP', key: 'HTTP' });
    const rb = await client.runbooks.create.mutate({ workspace_id: ws.id, name: 'Remote' });
    const page = await client.runbooks.list.query({ workspace_id: ws.id, page: {} });
    expect(page.items).toEqual([rb]);

    const readOnly = kit.userWith(['developer']);
    const error = await client.runbooks.delete
      .mutate({ id: rb.id }, { context: { credential: readOnly } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).shape.errors[0]).toMatchObject({ status: '403', code: 'forbidden' });

    const anonymous = await createCatalogClient(url)
      .workspaces.get.query({ id: ws.id })
      .catch((e: unknown) => e);
    expect((anonymous as TRPCClientError<any>).shape.errors[0]).toMatchObject({ status: '401', code: 'unauthorized' });
  });
});
