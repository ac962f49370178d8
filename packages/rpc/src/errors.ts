/**
 * The one place where errors are mapped: {@link AppError} ↔ tRPC codes ↔ HTTP statuses ↔ the REST
 * error document. Services never map errors themselves.
 */
import { AppError, type ErrorObject, type ErrorStatus, errorTitles } from '@runbook/contracts';
import { TRPCClientError } from '@trpc/client';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';

type TRPCCode = TRPCError['code'];

const statusToCode: Record<ErrorStatus, TRPCCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

const genericCodes: Partial<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
};

interface ZodLikeIssue {
  path: PropertyKey[];
  message: string;
  code?: string;
}

function isZodError(e: unknown): e is Error & { issues: ZodLikeIssue[] } {
  return e instanceof Error && e.name === 'ZodError' && Array.isArray((e as { issues?: unknown }).issues);
}

/** RFC 6901 pointer for a zod issue path, e.g. `/data/attributes/name`. */
function pointer(path: PropertyKey[]): string {
  return `/${path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

/** Turns a zod input failure into a 422 with one error object per issue. */
export function validationError(issues: ZodLikeIssue[]): AppError {
  const objects: ErrorObject[] = issues.map((i) => ({
    status: '422',
    code: 'validation_failed',
    title: errorTitles[422],
    detail: i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message,
    source: { pointer: pointer(i.path) },
  }));
  const [first, ...more] = objects;
  return new AppError(422, 'validation_failed', first?.detail ?? 'Invalid input.', {
    ...(first?.source ? { source: first.source } : {}),
    more,
  });
}

/**
 * A keyset cursor this server did not produce (`InvalidCursorError` from `@runbook/db`'s
 * `paginate`): the client's to fix, so a 400 pointing at the parameter — mapped here once for every
 * list of every service.
 */
function invalidCursor(): AppError {
  return new AppError(
    400,
    'invalid_cursor',
    'page[after] is not a cursor from this list; follow links.next or start again from page 1.',
    { source: { parameter: 'page[after]' } },
  );
}
const isInvalidCursor = (e: unknown): boolean => e instanceof Error && e.name === 'InvalidCursorError';

/** Network-level failure of a downstream service (refused, reset, timed out). */
function isUnreachable(e: TRPCClientError<any>): boolean {
  return !e.shape && !e.data;
}

/**
 * Converts whatever a procedure threw into a TRPCError whose `cause` is an {@link AppError}
 * (unexpected errors stay 500 with their original cause, for logs only).
 */
export function toTRPCError(error: TRPCError): TRPCError {
  const cause = error.cause;
  let app: AppError | undefined;
  if (cause instanceof AppError) app = cause;
  else if (error.code === 'BAD_REQUEST' && isZodError(cause)) app = validationError(cause.issues);
  else if (isInvalidCursor(cause)) app = invalidCursor();
  else if (cause instanceof TRPCClientError) {
    const errors = (cause.shape as { errors?: ErrorObject[] } | undefined)?.errors;
    if (errors && errors.length > 0) app = AppError.fromErrors(errors);
    else if (isUnreachable(cause))
      app = new AppError(503, 'service_unavailable', 'A backing service is unavailable; try again shortly.', {
        retryAfter: 1,
        cause,
      });
  }
  if (!app) return error;
  return new TRPCError({ code: statusToCode[app.status], message: app.message, cause: app });
}

/** The JSON:API error objects for any error that reached the formatter. 5xx details are generic. */
export function errorObjectsFor(error: TRPCError): ErrorObject[] {
  const cause = error.cause;
  if (cause instanceof AppError) return cause.errors;
  if (error.code === 'BAD_REQUEST' && isZodError(cause)) return validationError(cause.issues).errors;
  const status = getHTTPStatusCodeFromError(error);
  const title = errorTitles[status as ErrorStatus] ?? 'Error';
  const detail =
    status >= 500
      ? 'An unexpected error occurred.'
      : error.code === 'PARSE_ERROR'
        ? 'The request body is not valid JSON.'
        : error.message;
  return [{ status: String(status), code: genericCodes[status] ?? 'error', title, detail }];
}

/** `Retry-After` seconds carried by an error, if any. */
export function retryAfterOf(error: TRPCError): number | undefined {
  return error.cause instanceof AppError ? error.cause.retryAfter : undefined;
}
