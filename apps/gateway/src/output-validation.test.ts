import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outputValidationModeFromEnv, placeOutputValidation } from './output-validation.js';
import { gatewayRouter } from './router.js';

const doc = z.object({ data: z.object({ id: z.string(), name: z.string() }) });

/** A fresh router whose procedures return what they are given, behind a middleware that tags results. */
function fixture() {
  const t = initTRPC.create();
  const seen: unknown[] = [];
  const outer = t.procedure.use(async ({ next }) => {
    const result = await next();
    seen.push(result.ok ? 'ok' : 'error');
    return result;
  });
  const router = t.router({
    echo: outer
      .input(z.unknown())
      .output(doc)
      .query(({ input }) => input as z.infer<typeof doc>),
    untyped: t.procedure.query(() => 'no output schema'),
  });
  return { router, caller: t.createCallerFactory(router)({}), seen };
}

describe('output validation placement', () => {
  it('reads the mode from GATEWAY_CHECK_RESPONSES', () => {
    expect(outputValidationModeFromEnv({})).toBe('off');
    expect(outputValidationModeFromEnv({ GATEWAY_CHECK_RESPONSES: '1' })).toBe('check');
    expect(outputValidationModeFromEnv({ GATEWAY_CHECK_RESPONSES: 'true' })).toBe('check');
  });

  it('without placement, tRPC strips unknown fields (what "off" must never need to do)', async () => {
    const { caller } = fixture();
    await expect(caller.echo({ data: { id: '1', name: 'a', extra: true } })).resolves.toEqual({
      data: { id: '1', name: 'a' },
    });
  });

  it('off: the document is returned as built, without parsing; procedures without output are untouched', async () => {
    const { router, caller, seen } = fixture();
    expect(placeOutputValidation(router, 'off')).toBe(1);
    const invalid = { data: { id: 1 } };
    await expect(caller.echo(invalid)).resolves.toBe(invalid);
    await expect(caller.untyped()).resolves.toBe('no output schema');
    expect(seen).toEqual(['ok']);
    // The schema stays on the procedure for the OpenAPI document.
    expect((router._def.procedures.echo as unknown as { _def: { output: unknown } })._def.output).toBe(doc);
  });

  it('check: a valid, exact document passes through; one the parse would change or reject fails', async () => {
    const { router, caller, seen } = fixture();
    placeOutputValidation(router, 'check');
    const exact = { data: { id: '1', name: 'a' } };
    await expect(caller.echo(exact)).resolves.toBe(exact);
    await expect(caller.echo({ data: { id: '1', name: 'a', extra: true } })).rejects.toThrow(
      'The response of echo differs from its published schema once parsed.',
    );
    await expect(caller.echo({ data: { id: 1 } })).rejects.toThrow();
    // The check sits where the output middleware was: the outer middleware sees its failures.
    expect(seen).toEqual(['ok', 'error', 'error']);
  });

  it('the gateway router runs in the mode of its environment (check in this suite)', () => {
    const procedures = Object.values(gatewayRouter._def.procedures) as unknown as {
      _def: { output?: unknown; middlewares: { _type?: string; name: string }[] };
    }[];
    const withOutput = procedures.filter((p) => p._def.output);
    expect(withOutput.length).toBeGreaterThan(50);
    for (const p of withOutput) {
      const outputs = p._def.middlewares.filter((m) => m._type === 'output');
      expect(outputs.map((m) => m.name)).toEqual(['middleware']);
    }
  });
});
