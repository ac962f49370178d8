/**
 * The error contract shared by every service and the REST gateway. Domain code throws
 * {@link AppError}; `@runbook/rpc` maps it to a tRPC code, an HTTP status and the REST error document
 * `{"errors": [{status, code, title, detail, source?, meta?}]}` (JSON:API error objects, as in the
 * reference API: clients branch on the stable snake_case `code`).
 */
import { z } from 'zod';

/** HTTP statuses an {@link AppError} may carry. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 412 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504;

/** Title per status, as in RFC 9110's reason phrases. */
export const errorTitles: Record<ErrorStatus, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Where in the request an error points: a JSON Pointer (RFC 6901) into the body, or a query/path parameter. */
export interface ErrorSource {
  pointer?: string;
  parameter?: string;
  header?: string;
}

/** One JSON:API error object. */
export interface ErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: ErrorSource;
  meta?: Record<string, unknown>;
}

/**
 * An expected failure with a stable `code` (snake_case) and an HTTP `status`. Its `detail` is shown
 * to API clients, so it must never contain a secret value. `errors` may carry several objects (e.g.
 * one per invalid field); the first one names the error.
 */
export class AppError extends Error {
  readonly status: ErrorStatus;
  readonly code: string;
  readonly errors: ErrorObject[];
  /** Seconds a client should wait before retrying (sent as `Retry-After` on 429/503). */
  readonly retryAfter: number | undefined;

  constructor(
    status: ErrorStatus,
    code: string,
    detail: string,
    options: {
      source?: ErrorSource;
      meta?: Record<string, unknown>;
      more?: ErrorObject[];
      retryAfter?: number;
      cause?: unknown;
    } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.retryAfter = options.retryAfter;
    const first: ErrorObject = { status: String(status), code, title: errorTitles[status], detail };
    if (options.source) first.source = options.source;
    if (options.meta) first.meta = options.meta;
    this.errors = [first, ...(options.more ?? [])];
  }

  /** Rebuilds an error from a received error document (the code survives a service hop). */
  static fromErrors(errors: ErrorObject[], retryAfter?: number): AppError {
    const [first, ...more] = errors;
    const status = Number(first?.status ?? 500) as ErrorStatus;
    const e = new AppError(
      errorTitles[status] ? status : 500,
      first?.code ?? 'internal_error',
      first?.detail ?? 'Unknown error',
      {
        ...(first?.source ? { source: first.source } : {}),
        ...(first?.meta ? { meta: first.meta } : {}),
        more,
        ...(retryAfter === undefined ? {} : { retryAfter }),
      },
    );
    return e;
  }
}

/** 400 `bad_request`: the request could not be understood (malformed JSON, bad header). */
export const badRequest = (detail: string, source?: ErrorSource) =>
  new AppError(400, 'bad_request', detail, source ? { source } : {});
/** 401 `unauthorized`: credential missing, malformed, unknown, expired or revoked. The detail says which, never echoing the credential. */
export const unauthorized = (detail = 'A valid bearer token is required.') => new AppError(401, 'unauthorized', detail);
/** 403 `forbidden`: valid credential, insufficient role. */
export const forbidden = (detail: string) => new AppError(403, 'forbidden', detail);
/** 404 `not_found`: missing or not visible to the caller. */
export const notFound = (type: string, id: string) =>
  new AppError(404, 'not_found', `No ${type} with id ${JSON.stringify(id)}.`);
/** 409 with a specific `code` (e.g. `name_taken`, `version_conflict`). */
export const conflict = (code: string, detail: string, meta?: Record<string, unknown>) =>
  new AppError(409, code, detail, meta ? { meta } : {});
/** 422 with a specific `code` and the offending field as a JSON pointer. */
export const unprocessable = (code: string, detail: string, pointer?: string, meta?: Record<string, unknown>) =>
  new AppError(422, code, detail, { ...(pointer ? { source: { pointer } } : {}), ...(meta ? { meta } : {}) });

/** Zod schema of the REST error document (used in the OpenAPI document). */
export const errorDocumentSchema = z
  .object({
    errors: z.array(
      z.object({
        status: z.string().meta({ example: '404' }),
        code: z.string().meta({ example: 'not_found' }),
        title: z.string().meta({ example: 'Not Found' }),
        detail: z.string(),
        source: z
          .object({ pointer: z.string().optional(), parameter: z.string().optional(), header: z.string().optional() })
          .optional(),
        meta: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
  })
  .meta({ id: 'ErrorDocument' });
