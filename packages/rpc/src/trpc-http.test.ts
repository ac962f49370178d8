import { notFound, unauthorized } from '@runbook/contracts';
import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { TRPCError } from '@trpc/server';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createServiceClient } from './client.js';
import { toTRPCError } from './errors.js';
import { type BaseContext, createServiceTRPC, credentialFromHeader } from './trpc.js';
import { registerTRPC } from './trpc-http.js';

const { router, publicProcedure, authedProcedure } = createServiceTRPC<BaseContext>();
const appRouter = router({
  echo: publicProcedure
    .input(z.object({ n: z.number().int(), tag: z.string().optional() }))
    .output(z.object({ n: z.number(), tag: z.string().nullable() }))
    .query(({ input }) => ({ n: input.n, tag: input.tag ?? null })),
  add: publicProcedure
    .input(z.object({ a: z.number(), b: z.number() }))
    .mutation(({ input }) => ({ sum: input.a + input.b })),
  ping: publicProcedure.mutation(() => 'pong'),
  missing: publicProcedure.query(() => {
    throw notFound('runbook', '7');
  }),
  broken: publicProcedure.query(() => {
    throw new Error('database password is hunter2');
  }),
  badOutput: publicProcedure.output(z.object({ n: z.number() })).query(() => ({ n: 'x' }) as never),
  whoami: authedProcedure.query(({ ctx }) => ctx.principal.kind),
  signalKind: publicProcedure.query(({ signal }) => (signal === undefined ? 'direct' : 'tRPC handler')),
});

const createContext = (req: FastifyRequest): BaseContext => ({
  ...credentialFromHeader(req.headers.authorization),
  authenticate: async (credential) => {
    if (credential !== 'good') throw unauthorized('Bad token');
    return { kind: 'user', user_id: '1', roles: [{ role: 'developer', workspace_id: null }] } as never;
  },
});

let direct: FastifyInstance;
let reference: FastifyInstance;
let directUrl: string;
let referenceUrl: string;
const directErrors = vi.fn();
const referenceErrors = vi.fn();

beforeAll(async () => {
  direct = Fastify();
  await registerTRPC(direct, '/trpc', { router: appRouter, createContext, onError: directErrors });
  reference = Fastify();
  await reference.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: ({ req }: { req: FastifyRequest }) => createContext(req),
      onError: referenceErrors,
    },
  });
  directUrl = `${await direct.listen({ port: 0, host: '127.0.0.1' })}/trpc`;
  referenceUrl = `${await reference.listen({ port: 0, host: '127.0.0.1' })}/trpc`;
});

afterAll(async () => {
  await direct.close();
  await reference.close();
});

const q = (input: unknown) => `?input=${encodeURIComponent(JSON.stringify(input))}`;
const json = { 'content-type': 'application/json' };

/** Requests whose answers must be identical on the direct path and on tRPC's own handler. */
const cases: [string, string, RequestInit?][] = [
  ['query', `/echo${q({ n: 3, tag: 'a' })}`],
  ['query, optional field omitted', `/echo${q({ n: 3 })}`],
  ['query, invalid input (zod)', `/echo${q({ n: 'three' })}`],
  ['query, no input where one is required', '/echo'],
  ['query, input that is not JSON', '/echo?input=%7Bnope'],
  ['query throwing an AppError', '/missing'],
  ['query throwing an unexpected error', '/broken'],
  ['query whose output fails its schema', '/badOutput'],
  ['authed query without a credential', '/whoami'],
  ['authed query with a bad credential', '/whoami', { headers: { authorization: 'Bearer nope' } }],
  ['authed query with a malformed header', '/whoami', { headers: { authorization: 'Basic abc' } }],
  ['authed query with a good credential', '/whoami', { headers: { authorization: 'Bearer good' } }],
  ['mutation', '/add', { method: 'POST', headers: json, body: JSON.stringify({ a: 1, b: 2 }) }],
  ['mutation, invalid input', '/add', { method: 'POST', headers: json, body: JSON.stringify({ a: 1 }) }],
  ['mutation, body not JSON', '/add', { method: 'POST', headers: json, body: '{"a":' }],
  ['mutation without input', '/ping', { method: 'POST', headers: json }],
  ['mutation without input or content-type', '/ping', { method: 'POST' }],
  ['GET of a mutation', '/add'],
  ['POST to a query', '/echo', { method: 'POST', headers: json, body: JSON.stringify({ n: 1 }) }],
  ['unknown procedure', '/nope'],
  ['a path naming an Object.prototype member', '/constructor'],
  ['a path naming __proto__', '/__proto__'],
  ['PUT', '/echo', { method: 'PUT', headers: json, body: '{}' }],
  ['batch of two', `/echo,missing?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { n: 1 } }))}`],
];

describe('registerTRPC (direct path for single calls, tRPC handler for the rest)', () => {
  it.each(cases)('answers %s exactly as fastifyTRPCPlugin does', async (_name, path, init) => {
    const [a, b] = await Promise.all([fetch(`${directUrl}${path}`, init), fetch(`${referenceUrl}${path}`, init)]);
    const [bodyA, bodyB] = await Promise.all([a.text(), b.text()]);
    expect({ status: a.status, type: a.headers.get('content-type'), body: bodyA }).toEqual({
      status: b.status,
      type: b.headers.get('content-type'),
      body: bodyB,
    });
    expect(bodyA).not.toContain('hunter2');
  });

  it('reports errors to onError like the tRPC handler (code and path)', async () => {
    directErrors.mockClear();
    referenceErrors.mockClear();
    await Promise.all([fetch(`${directUrl}/broken`), fetch(`${referenceUrl}/broken`)]);
    expect(directErrors).toHaveBeenCalledTimes(1);
    expect(referenceErrors).toHaveBeenCalledTimes(1);
    const pick = (fn: typeof directErrors) => {
      const { error, path } = (fn.mock.calls[0] ?? [])[0] as { error: { code: string }; path: string };
      return { code: error.code, path };
    };
    expect(pick(directErrors)).toEqual(pick(referenceErrors));
    expect(pick(directErrors)).toEqual({ code: 'INTERNAL_SERVER_ERROR', path: 'broken' });
  });

  it('serves single calls on the direct path and batches through the tRPC handler', async () => {
    const single = await fetch(`${directUrl}/signalKind`).then((r) => r.json());
    expect(single).toEqual({ result: { data: 'direct' } });
    const batch = await fetch(`${directUrl}/signalKind?batch=1&input=%7B%7D`).then((r) => r.json());
    expect(batch).toEqual([{ result: { data: 'tRPC handler' } }]);
  });

  it('works with @trpc/client httpLink and httpBatchLink', async () => {
    for (const link of [httpLink({ url: directUrl }), httpBatchLink({ url: directUrl })]) {
      const client = createTRPCClient<typeof appRouter>({ links: [link] });
      await expect(client.echo.query({ n: 5 })).resolves.toEqual({ n: 5, tag: null });
      await expect(client.add.mutate({ a: 2, b: 3 })).resolves.toEqual({ sum: 5 });
      await expect(client.ping.mutate()).resolves.toBe('pong');
      const error = await client.missing.query().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCClientError);
      expect((error as TRPCClientError<typeof appRouter>).data?.httpStatus).toBe(404);
      expect((error as TRPCClientError<typeof appRouter>).shape?.errors[0]).toMatchObject({ code: 'not_found' });
    }
  });

  it('answers a service client call without aborting anything (patches/@trpc__server@11.25.2.patch)', async () => {
    const client = createServiceClient<typeof appRouter>(directUrl.replace(/\/trpc$/, ''), 'good');
    const abort = vi.spyOn(AbortController.prototype, 'abort');
    let aborts: number;
    try {
      await expect(client.echo.query({ n: 1 })).resolves.toEqual({ n: 1, tag: null });
      await expect(client.whoami.query()).resolves.toBe('user');
      aborts = abort.mock.calls.length;
    } finally {
      abort.mockRestore();
    }
    expect(aborts).toBe(0);
  });

  it('serves the platform service client: results, forwarded credentials, error shapes', async () => {
    const client = createServiceClient<typeof appRouter>(directUrl.replace(/\/trpc$/, ''), 'good');
    await expect(client.echo.query({ n: 7, tag: 'x' })).resolves.toEqual({ n: 7, tag: 'x' });
    await expect(client.add.mutate({ a: 1, b: 2 })).resolves.toEqual({ sum: 3 });
    await expect(client.ping.mutate()).resolves.toBe('pong');
    await expect(client.whoami.query()).resolves.toBe('user');
    const refused = await client.whoami.query(undefined, { context: { credential: 'nope' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<typeof appRouter>).data?.httpStatus).toBe(401);
    const invalid = await client.echo.query({ n: 'x' as never }).catch((e: unknown) => e);
    expect((invalid as TRPCClientError<typeof appRouter>).data?.httpStatus).toBe(422);
    expect((invalid as TRPCClientError<typeof appRouter>).shape?.errors[0]).toMatchObject({
      code: 'validation_failed',
      source: { pointer: '/n' },
    });
  });

  it('rejects without an error shape when the service is unreachable (mapped to 503), and honours the signal', async () => {
    const closed = Fastify();
    const closedUrl = await closed.listen({ port: 0, host: '127.0.0.1' });
    await closed.close();
    const unreachable = await createServiceClient<typeof appRouter>(closedUrl)
      .echo.query({ n: 1 })
      .catch((e: unknown) => e);
    expect(unreachable).toBeInstanceOf(TRPCClientError);
    expect((unreachable as TRPCClientError<typeof appRouter>).shape).toBeUndefined();
    expect(toTRPCError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: unreachable })).code).toBe(
      'SERVICE_UNAVAILABLE',
    );

    const client = createServiceClient<typeof appRouter>(directUrl.replace(/\/trpc$/, ''));
    const aborted = await client.echo.query({ n: 1 }, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(aborted).toBeInstanceOf(TRPCClientError);
  });

  it('cancels a call in flight when its signal aborts: the request is closed, the call rejects at once', async () => {
    const slow = Fastify();
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const closed = new Promise<void>((resolve) => {
      slow.get('/trpc/echo', (req) => {
        req.raw.socket.once('close', () => resolve());
        arrived();
        return new Promise(() => {}); // never answers
      });
    });
    const slowUrl = await slow.listen({ port: 0, host: '127.0.0.1' });
    try {
      const controller = new AbortController();
      const call = createServiceClient<typeof appRouter>(slowUrl, 'good', { timeoutMs: 60_000 })
        .echo.query({ n: 1 }, { signal: controller.signal })
        .catch((e: unknown) => e);
      await reached;
      controller.abort();
      const error = await call;
      expect(error).toBeInstanceOf(TRPCClientError);
      expect((error as TRPCClientError<typeof appRouter>).shape).toBeUndefined();
      await closed; // the service saw its connection closed (times out otherwise)
    } finally {
      await slow.close();
    }
  });

  it('rejects a body that is not JSON without quoting it (it may hold resolved secret values)', async () => {
    const broken = Fastify();
    broken.get('/trpc/echo', (_req, reply) =>
      reply.header('content-type', 'application/json').send('{"result":{"data":"s3cr3t-value"'),
    );
    const brokenUrl = await broken.listen({ port: 0, host: '127.0.0.1' });
    try {
      const error = await createServiceClient<typeof appRouter>(brokenUrl)
        .echo.query({ n: 1 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCClientError);
      expect((error as Error).message).toBe('The service answered 200 with a body that is not JSON.');
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('s3cr3t');
      expect(toTRPCError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: error })).code).toBe(
        'SERVICE_UNAVAILABLE',
      );
    } finally {
      await broken.close();
    }
  });
});
