import { type AppError, unprocessable } from '@runbook/contracts';
import { InvalidCursorError } from '@runbook/db';
import { TRPCClientError } from '@trpc/client';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorObjectsFor, toTRPCError } from './errors.js';

const wrap = (cause: unknown, code: TRPCError['code'] = 'INTERNAL_SERVER_ERROR') => new TRPCError({ code, cause });

describe('error mapping (the one place AppError ↔ tRPC ↔ HTTP)', () => {
  it('keeps an AppError and maps its status to the tRPC code', () => {
    const mapped = toTRPCError(wrap(unprocessable('predecessor_cycle', 'cycle', '/data/relationships/predecessors')));
    expect(mapped.code).toBe('UNPROCESSABLE_CONTENT');
    expect(errorObjectsFor(mapped)).toEqual([
      expect.objectContaining({
        status: '422',
        code: 'predecessor_cycle',
        source: { pointer: '/data/relationships/predecessors' },
      }),
    ]);
  });

  it('turns input validation failures into 422 with one pointer per issue', () => {
    const result = z
      .object({ data: z.object({ name: z.string(), n: z.number() }) })
      .safeParse({ data: { name: 1, n: 'x' } });
    const mapped = toTRPCError(wrap(result.error, 'BAD_REQUEST'));
    expect(mapped.code).toBe('UNPROCESSABLE_CONTENT');
    expect(errorObjectsFor(mapped).map((e) => e.source?.pointer)).toEqual(['/data/name', '/data/n']);
  });

  it('answers a foreign keyset cursor with 400 invalid_cursor on the page[after] parameter', () => {
    const mapped = toTRPCError(wrap(new InvalidCursorError()));
    expect(mapped.code).toBe('BAD_REQUEST');
    expect(errorObjectsFor(mapped)).toEqual([
      expect.objectContaining({ code: 'invalid_cursor', source: { parameter: 'page[after]' } }),
    ]);
  });

  it('carries a downstream service error across the hop with its code', () => {
    const downstream = new TRPCClientError('gone', {
      result: {
        error: {
          message: 'gone',
          code: -32004,
          data: {},
          errors: [{ status: '404', code: 'not_found', title: 'Not Found', detail: 'No task' }],
        },
      },
    } as never);
    const mapped = toTRPCError(wrap(downstream));
    expect(mapped.code).toBe('NOT_FOUND');
    expect((mapped.cause as AppError).code).toBe('not_found');
  });

  it('maps an unreachable service to 503 with Retry-After, and hides details of unexpected errors', () => {
    const unreachable = toTRPCError(wrap(new TRPCClientError('fetch failed')));
    expect(unreachable.code).toBe('SERVICE_UNAVAILABLE');
    expect((unreachable.cause as AppError).retryAfter).toBe(1);
    const unexpected = toTRPCError(wrap(new Error('db password is hunter2')));
    expect(errorObjectsFor(unexpected)).toEqual([
      expect.objectContaining({ status: '500', detail: 'An unexpected error occurred.' }),
    ]);
  });
});
