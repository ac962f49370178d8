/**
 * Mounts the gateway router as REST (trpc-to-openapi's Fastify plugin) and makes every response
 * follow the documented contract:
 * - `Content-Type: application/json` with parameters (`; charset=utf-8`) and `application/vnd.api+json`
 *   are accepted (the plugin itself only reads exactly `application/json`);
 * - every error — from procedures, from body parsing (400/413/415), unknown routes (404) — is the
 *   error document `{"errors": [...]}` and nothing else (no stack, no tRPC fields);
 * - successes use the procedure's `meta.status` (201 create, 204 delete);
 * - `Retry-After` accompanies 429/503; `Api-Version` is negotiated and echoed.
 */
import { type ErrorStatus, errorTitles, type ProcedureMeta } from '@runbook/contracts';
import { retryAfterOf } from '@runbook/rpc';
import type { AnyRouter, TRPCError } from '@trpc/server';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import { negotiateApiVersion } from './api-version.js';

const JSON_TYPES = /^application\/(?:vnd\.api\+)?json\s*(?:;.*)?$/i;

function errorBody(status: number, code: string, detail: string) {
  return { errors: [{ status: String(status), code, title: errorTitles[status as ErrorStatus] ?? 'Error', detail }] };
}

const fastifyErrorCodes: Record<string, [number, string, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', 'The request body is larger than the limit of this server.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'Send JSON with Content-Type: application/json.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'bad_request', 'The request body is empty; send a JSON document.'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'bad_request', 'The request body is not valid JSON.'],
};

/** Options for {@link registerRest}. */
export interface RestOptions<TRouter extends AnyRouter> {
  router: TRouter;
  createContext: (req: FastifyRequest) => unknown;
  onUnexpectedError: (error: unknown, path: string | undefined) => void;
}

export async function registerRest<TRouter extends AnyRouter>(app: FastifyInstance, options: RestOptions<TRouter>) {
  const procedures = options.router._def.procedures as Record<string, { _def: { meta?: ProcedureMeta } }>;
  const successStatus = (path: string | undefined) => (path ? procedures[path]?._def.meta?.status : undefined) ?? 200;

  app.setErrorHandler((error: FastifyError, _req: FastifyRequest, reply: FastifyReply) => {
    const known = error.code ? fastifyErrorCodes[error.code] : undefined;
    if (known) return reply.code(known[0]).send(errorBody(...known));
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) options.onUnexpectedError(error, undefined);
    const detail = status === 500 ? 'An unexpected error occurred.' : error.message;
    return reply.code(status).send(errorBody(status, status === 500 ? 'internal_error' : 'bad_request', detail));
  });

  await app.register(async (rest) => {
    rest.addHook('onRequest', async (req, reply) => {
      const contentType = req.headers['content-type'];
      if (contentType && JSON_TYPES.test(contentType)) req.headers['content-type'] = 'application/json';
      const negotiated = negotiateApiVersion(req.headers['api-version'] as string | undefined);
      if ('error' in negotiated) {
        return reply.code(400).send({ ...errorBody(400, 'unsupported_api_version', negotiated.error), _rest: true });
      }
      reply.header('api-version', negotiated.version);
    });

    // Actions like `PATCH …/tasks/{id}/start` take no body (reference API); the plugin answers a
    // bodiless write without Content-Type with 415, so such a request is handed over as an empty JSON object.
    rest.addHook('preValidation', async (req) => {
      if (req.body === undefined && req.headers['content-type'] === undefined && req.method !== 'GET') {
        req.headers['content-type'] = 'application/json';
        req.body = {};
      }
    });

    rest.addHook('onSend', async (_req, reply, payload) => {
      if (reply.statusCode === 204) {
        reply.removeHeader('content-type');
        return '';
      }
      if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
      try {
        const body = JSON.parse(payload) as { errors?: unknown };
        if (Array.isArray(body.errors)) return JSON.stringify({ errors: body.errors });
      } catch {
        /* not JSON: leave it */
      }
      return payload;
    });

    await rest.register(fastifyTRPCOpenApiPlugin, {
      basePath: '',
      router: options.router,
      createContext: ({ req }: { req: FastifyRequest }) => options.createContext(req),
      responseMeta({ paths, errors }: { paths?: string[]; errors: TRPCError[] }) {
        const [error] = errors;
        if (!error) return { status: successStatus(paths?.[0]) };
        const retryAfter = retryAfterOf(error);
        return retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } };
      },
      onError({ error, path }: { error: TRPCError; path?: string }) {
        if (error.code === 'INTERNAL_SERVER_ERROR') options.onUnexpectedError(error.cause ?? error, path);
      },
    } as never);
  });
}
