/**
 * Where the gateway's response documents are validated (issue 7: "validation placement by
 * measurement"; numbers in docs/performance.md).
 *
 * Every gateway procedure declares its JSON:API document with `.output(schema)`: trpc-to-openapi
 * needs the schema for `/openapi.json`, and tRPC turns it into a middleware that parses every
 * response. That parse re-validates a document the gateway has just built, by a typed mapping, from
 * service DTOs the owning service already validated on its way out — and it was ≈ 20 % of the
 * gateway's own CPU per list (ADR 0007). So outputs are validated at one boundary, the service:
 * - `off` (production default): the gateway's output middlewares are removed; the schemas stay on
 *   the procedures for the document;
 * - `check` (`GATEWAY_CHECK_RESPONSES=1`; the test suite sets it): each output middleware is replaced
 *   by one that parses the document and fails the request (500, logged) unless parsing returns it
 *   unchanged. Every test through the gateway thus proves the document matches its published
 *   schema **and** that skipping the parse changes no byte (no field the schema would strip, no
 *   default it would fill in).
 *
 * Relies on tRPC v11 procedure internals (`_def.middlewares`, the output middleware's `_type`,
 * `_def.output`), pinned in the catalog; `output-validation.test.ts` fails if they change.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AnyRouter } from '@trpc/server';

/** `off`: outputs are not parsed at the gateway; `check`: parsed and required to be unchanged. */
export type OutputValidationMode = 'off' | 'check';

type Middleware = ((opts: {
  path: string;
  next: () => Promise<{ ok: boolean; data?: unknown }>;
}) => Promise<unknown>) & { _type?: string };

interface ProcedureDef {
  middlewares: Middleware[];
  output?: { parse(value: unknown): unknown };
}

/** The output mode from the environment: `check` when `GATEWAY_CHECK_RESPONSES=1`, else `off`. */
export const outputValidationModeFromEnv = (env: NodeJS.ProcessEnv = process.env): OutputValidationMode =>
  env.GATEWAY_CHECK_RESPONSES === '1' || env.GATEWAY_CHECK_RESPONSES === 'true' ? 'check' : 'off';

/** A middleware that parses the result with `schema` and throws unless that changes nothing. */
function checkingMiddleware(schema: NonNullable<ProcedureDef['output']>): Middleware {
  const middleware: Middleware = async ({ path, next }) => {
    const result = await next();
    if (!result.ok) return result;
    const parsed = schema.parse(result.data);
    if (!isDeepStrictEqual(parsed, result.data)) {
      throw new Error(`The response of ${path} differs from its published schema once parsed.`);
    }
    return result;
  };
  middleware._type = 'output';
  return middleware;
}

/**
 * Applies `mode` to every procedure of `router` that declares an output. Call it once per router,
 * before it serves (the gateway router does so when its module loads).
 * @returns the number of procedures changed.
 */
export function placeOutputValidation(router: AnyRouter, mode: OutputValidationMode): number {
  let changed = 0;
  for (const procedure of Object.values(router._def.procedures as Record<string, { _def: ProcedureDef }>)) {
    const def = procedure._def;
    if (!def.output) continue;
    const schema = def.output;
    // In place of the output middleware: what follows it in the chain still runs inside it.
    def.middlewares = def.middlewares.flatMap((m) =>
      m._type !== 'output' ? [m] : mode === 'check' ? [checkingMiddleware(schema)] : [],
    );
    changed++;
  }
  return changed;
}
