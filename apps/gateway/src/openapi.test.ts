import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, markOptionalBodies } from './openapi.js';
import { gatewayRouter } from './router.js';

const doc = buildOpenApiDocument('http://127.0.0.1:3000');
type Operation = {
  operationId: string;
  responses: Record<string, unknown>;
  security?: unknown;
  requestBody?: { required?: boolean };
};
const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item as Record<string, Operation>).map(([method, op]) => ({ path, method, op })),
);

describe('OpenAPI document', () => {
  it('is the contract: any change to it is deliberate (update with `vitest -u`)', async () => {
    await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot('./__snapshots__/openapi.json');
  });

  it('publishes every gateway procedure that declares a REST route, under /core', () => {
    const procedures = Object.values(
      gatewayRouter._def.procedures as unknown as Record<
        string,
        { _def: { meta?: { openapi?: { method: string; path: string } } } }
      >,
    );
    const declared = procedures.flatMap((p) =>
      p._def.meta?.openapi ? [`${p._def.meta.openapi.method.toLowerCase()} ${p._def.meta.openapi.path}`] : [],
    );
    expect(declared.length).toBeGreaterThan(0);
    expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(declared.sort());
    for (const { path } of operations) expect(path.startsWith('/core/')).toBe(true);
  });

  it('documents the error document and bearer authentication on every operation', () => {
    for (const { op } of operations) {
      for (const status of ['400', '401', '403', '404', '422']) {
        expect(op.responses[status], `${op.operationId} ${status}`).toMatchObject({
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDocument' } } },
        });
      }
      expect(op.security).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('marks a request body required exactly when the request cannot be sent without one', () => {
    const optional = operations.filter(({ op }) => op.requestBody && op.requestBody.required === false);
    // The run actions take an optional `{"meta": …}`; the orchestration e2e suite sends them bodiless.
    expect(optional.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'patch /core/runbooks/{id}/cancel',
      'patch /core/runbooks/{id}/pause',
      'patch /core/runbooks/{id}/resume',
      'patch /core/runbooks/{id}/start',
    ]);
    const create = operations.find(({ method, path }) => method === 'post' && path === '/core/runbooks');
    expect(create?.op.requestBody?.required).toBe(true);
    const skip = operations.find(({ path }) => path === '/core/runbooks/{runbook_id}/tasks/{id}/skip');
    expect(skip?.op.requestBody?.required).toBe(true);
  });

  it('reads $ref body schemas from components before calling a body optional', () => {
    const body = (schema: object) => ({ requestBody: { required: true, content: { 'application/json': { schema } } } });
    const synthetic = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      components: { schemas: { Needs: { type: 'object', required: ['data'] }, Free: { type: 'object' } } },
      paths: {
        '/a': { post: body({ $ref: '#/components/schemas/Needs' }) },
        '/b': { post: body({ $ref: '#/components/schemas/Free' }) },
        '/c': { post: body({ $ref: '#/components/schemas/Missing' }) },
      },
    };
    markOptionalBodies(synthetic as never);
    const required = (path: '/a' | '/b' | '/c') => synthetic.paths[path].post.requestBody.required;
    expect([required('/a'), required('/b'), required('/c')]).toEqual([true, false, true]);
  });
});
