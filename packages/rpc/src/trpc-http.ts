/**
 * Mounts a tRPC router on Fastify at `prefix` (e.g. `/trpc`), answering single, non-batched
 * queries (`GET /trpc/<path>?input=<json>`) and mutations (`POST /trpc/<path>`, JSON body) on a
 * direct path, and handing every other request to tRPC's own Fastify handler.
 *
 * Why: tRPC's adapters turn each request into a Fetch `Request`/`Response` (URL, Headers, abort
 * signals, web streams) before and after the procedure. Measured on these machines that conversion
 * was half of a service's CPU per call (catalog's `runbooks.list`: 0.60 → 0.27–0.32 ms CPU per
 * request; ADR 0006, docs/performance.md). The direct path builds the same call through tRPC's
 * public adapter building blocks (`callTRPCProcedure`, `getTRPCErrorShape`,
 * `transformTRPCResponse`, `getHTTPStatusCode`), so middleware, validation, the error formatter and
 * the wire format stay tRPC's; HTTP stays Fastify's.
 *
 * Wire format (tRPC's HTTP RPC spec, https://trpc.io/docs/rpc): `200 {"result":{"data":…}}`, errors
 * `{"error":<formatted shape>}` with the status of the error's code. A differential test
 * (`trpc-http.test.ts`) holds the direct path to byte-identical status and body with
 * `fastifyTRPCPlugin` for successes, validation errors, thrown errors, unknown procedures, wrong
 * methods and malformed input.
 *
 * Handed to tRPC's handler unchanged: batches (`?batch=1`), streaming (`trpc-accept` header),
 * subscriptions, method mismatches, unknown procedures and input that is not valid JSON — so those
 * answer exactly as tRPC answers them. The direct path passes no abort signal to procedures
 * (`signal` is `undefined`); none of this project's procedures read it.
 */
import {
  type AnyRouter,
  callTRPCProcedure,
  getTRPCErrorFromUnknown,
  getTRPCErrorShape,
  transformTRPCResponse,
} from '@trpc/server';
import { fastifyRequestHandler } from '@trpc/server/adapters/fastify';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Options of {@link registerTRPC}. */
export interface TRPCRouteOptions<TRouter extends AnyRouter> {
  router: TRouter;
  /** Builds the context from the request (called once per request, inside the error boundary). */
  createContext: (req: FastifyRequest) => unknown;
  /** Called with every error a procedure or the context factory throws (for logging). */
  onError?: (opts: { error: { code: string; cause?: unknown; message: string }; path?: string }) => void;
}

const ACCEPTED_TYPE = { GET: 'query', POST: 'mutation' } as const;
const NOT_PARSED = Symbol('not parsed');

/** Reads the call's input the way tRPC does; `NOT_PARSED` when it is not valid JSON (tRPC answers that). */
function rawInput(req: FastifyRequest): unknown {
  let text: unknown;
  if (req.method === 'GET') text = (req.query as Record<string, string | undefined>).input;
  else if (typeof req.body === 'string') text = req.body;
  else return NOT_PARSED; // no JSON content-type: tRPC's handler answers (415)
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text as string);
  } catch {
    return NOT_PARSED;
  }
}

/**
 * Registers `ALL <prefix>/:path` on `app` (see the module comment for what is served directly).
 * JSON and multipart bodies reach tRPC as raw text, as with `fastifyTRPCPlugin`, inside this
 * plugin's encapsulation context only.
 */
export async function registerTRPC<TRouter extends AnyRouter>(
  app: FastifyInstance,
  prefix: string,
  options: TRPCRouteOptions<TRouter>,
): Promise<void> {
  const { router } = options;
  const config = router._def._config;
  const procedures = router._def.procedures as Record<string, { _def: { type: string } } | undefined>;
  const trpcOptions = {
    router,
    createContext: ({ req }: { req: FastifyRequest }) => options.createContext(req),
    onError: options.onError,
  };

  const viaTRPC = (req: FastifyRequest, reply: FastifyReply, path: string) =>
    fastifyRequestHandler({ ...trpcOptions, req, res: reply, path } as Parameters<typeof fastifyRequestHandler>[0]);

  await app.register(
    async (scope) => {
      scope.removeContentTypeParser('application/json');
      scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
      scope.removeContentTypeParser('multipart/form-data');
      scope.addContentTypeParser('multipart/form-data', {}, (_req, body, done) => done(null, body));

      scope.all('/:path', async (req, reply) => {
        const path = (req.params as { path: string }).path;
        const type = ACCEPTED_TYPE[req.method as keyof typeof ACCEPTED_TYPE];
        const direct =
          type !== undefined &&
          procedures[path]?._def?.type === type &&
          (req.query as Record<string, unknown>).batch === undefined &&
          req.headers['trpc-accept'] === undefined;
        const input = direct ? rawInput(req) : NOT_PARSED;
        if (input === NOT_PARSED) return viaTRPC(req, reply, path);

        let ctx: unknown;
        let body: unknown;
        try {
          ctx = await options.createContext(req);
          const data = await callTRPCProcedure({
            router,
            path,
            getRawInput: async () => input,
            ctx,
            type,
            signal: undefined,
            batchIndex: 0,
          });
          body = transformTRPCResponse(config, { result: { data } });
        } catch (cause) {
          const error = getTRPCErrorFromUnknown(cause);
          options.onError?.({ error, path });
          const shape = getTRPCErrorShape({ config, error, type, path, input, ctx });
          reply.code(getHTTPStatusCode({ error: shape } as never, [error]));
          body = transformTRPCResponse(config, { error: shape });
        }
        // A Buffer keeps `content-type` exactly as tRPC sends it (Fastify appends a charset to strings).
        return reply
          .header('vary', 'trpc-accept, accept')
          .header('content-type', 'application/json')
          .send(Buffer.from(JSON.stringify(body)));
      });
    },
    { prefix },
  );
}
