/**
 * The request bodies the `/docs` Try page pre-fills must be accepted by the API: every JSON body in
 * the OpenAPI document carries an example, and that example (with path parameters filled in) passes
 * the procedure's zod input.
 */
import type { ProcedureMeta } from '@runbook/contracts';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { buildOpenApiDocument } from './openapi.js';
import { requestBodyExamples, sampleFromSchema } from './openapi-examples.js';
import { gatewayRouter } from './router.js';

type Operation = {
  operationId: string;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: Record<string, { example?: unknown }> };
};

const doc = buildOpenApiDocument('http://127.0.0.1:3000');
const procedures = gatewayRouter._def.procedures as unknown as Record<
  string,
  { _def: { meta?: ProcedureMeta; inputs: z.ZodType[] } }
>;
const withBody = Object.values(procedures).flatMap((procedure) => {
  const route = procedure._def.meta?.openapi;
  const op = route ? (doc.paths?.[route.path] as Record<string, Operation>)?.[route.method.toLowerCase()] : undefined;
  return op?.requestBody ? [{ op, inputs: procedure._def.inputs }] : [];
});

describe('request body examples', () => {
  it('cover every operation with a JSON body', () => {
    expect(withBody.length).toBeGreaterThan(0);
    for (const { op } of withBody) {
      expect(op.requestBody?.content['application/json']?.example, op.operationId).toBeDefined();
    }
  });

  it('name only operations that exist', () => {
    const ids = new Set(withBody.map(({ op }) => op.operationId));
    for (const id of Object.keys(requestBodyExamples)) expect(ids.has(id), id).toBe(true);
  });

  it.each(withBody.map(({ op, inputs }) => [op.operationId, op, inputs] as const))(
    '%s: the pre-filled body passes the procedure input',
    async (_id, op, inputs) => {
      const example = op.requestBody?.content['application/json']?.example as Record<string, unknown>;
      const pathParams = Object.fromEntries(
        (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, '1']),
      );
      for (const input of inputs) {
        const result = await input.safeParseAsync({ ...pathParams, ...example });
        expect(result.error?.issues ?? [], JSON.stringify(example)).toEqual([]);
      }
    },
  );
});

describe('sampleFromSchema', () => {
  const schemas = { Attrs: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } };

  it('fills required properties and optional ones with an example, and skips the rest', () => {
    expect(
      sampleFromSchema(
        {
          type: 'object',
          properties: {
            type: { type: 'string', const: 'thing' },
            id: { type: 'string' },
            attributes: { $ref: '#/components/schemas/Attrs' },
            note: { type: 'string', example: 'hello' },
            count: { type: 'integer', minimum: 3 },
          },
          required: ['type', 'attributes', 'count'],
        },
        schemas,
      ),
    ).toEqual({ type: 'thing', attributes: { name: 'example' }, note: 'hello', count: 3 });
  });

  it('uses enum values, defaults, non-null variants and minItems', () => {
    expect(sampleFromSchema({ type: 'string', enum: ['a', 'b'] })).toBe('a');
    expect(sampleFromSchema({ type: 'boolean', default: true })).toBe(true);
    expect(sampleFromSchema({ anyOf: [{ type: 'null' }, { type: 'integer' }] })).toBe(1);
    expect(sampleFromSchema({ type: 'array', minItems: 2, items: { type: 'string', example: 'x' } })).toEqual([
      'x',
      'x',
    ]);
  });
});
