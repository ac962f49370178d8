/**
 * JSON:API-style documents as the reference API uses them (see shared `cutover-api-facts.md`):
 * `{"data": {"id", "type", "attributes", "relationships"}, "meta", "links"}` with string ids, singular
 * snake_case types, `page[number]`/`page[size]` pagination and `links.next` for keyset paging.
 */
import { z } from 'zod';

/** Numeric ids travel as decimal strings, as in the reference API. */
export const idSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer id given as a string')
  .meta({ example: '42' });

/** ISO-8601 UTC timestamp with milliseconds, e.g. `2026-11-21T10:00:00.000Z`. */
export const timestampSchema = z.iso.datetime().meta({ example: '2026-11-21T10:00:00.000Z' });

/** Default `page[size]` (DESIGN §3). */
export const PAGE_SIZE_DEFAULT = 25;
/** Largest `page[size]` accepted; a larger one is a 422 `validation_failed` (DESIGN §3). */
export const PAGE_SIZE_MAX = 100;

/**
 * Pagination query parameters. `page[after]` is the opaque keyset cursor found in `links.next`; when
 * present it wins over `page[number]` and costs the same at any depth. `page[number]` (1-based) costs
 * an offset scan proportional to its depth.
 */
export const pageQueryShape = {
  'page[number]': z.coerce.number().int().min(1).max(1_000_000).optional().meta({
    description: 'Page number, 1-based (default 1). Deep pages cost an offset scan; follow `links.next` instead.',
  }),
  'page[size]': z.coerce
    .number()
    .int()
    .min(1)
    .max(PAGE_SIZE_MAX)
    .optional()
    .meta({ description: `Items per page (default ${PAGE_SIZE_DEFAULT}, max ${PAGE_SIZE_MAX}).` }),
  'page[after]': z
    .string()
    .max(512)
    .optional()
    .meta({ description: 'Opaque cursor from `links.next`; pages at any depth cost the same.' }),
};

/** `meta.page` of a list document. */
export const pageMetaSchema = z.object({
  number: z.number().int(),
  size: z.number().int(),
  total: z.number().int().meta({ description: 'Items matching the filters.' }),
  total_pages: z.number().int(),
});

/** `links` of a list document; `next`/`prev` are absent on the last/first page. */
export const listLinksSchema = z.object({
  self: z.string(),
  first: z.string(),
  last: z.string(),
  prev: z.string().optional(),
  next: z.string().optional(),
});

/** A to-one relationship: `{"data": {"id", "type"}}` (or `null`). */
export const toOne = (type: string) =>
  z.object({ data: z.object({ id: z.string(), type: z.literal(type) }).nullable() });
/** A to-many relationship: `{"data": [{"id", "type"}, …]}`. */
export const toMany = (type: string) =>
  z.object({ data: z.array(z.object({ id: z.string(), type: z.literal(type) })) });

/**
 * A resource object schema: `{id, type, attributes, relationships?}`.
 * @param type the singular snake_case type, e.g. `runbook`.
 */
export function resourceSchema<T extends string, A extends z.ZodType, R extends z.ZodType | undefined = undefined>(
  type: T,
  attributes: A,
  relationships?: R,
) {
  return z.object({
    id: idSchema,
    type: z.literal(type),
    attributes,
    ...(relationships ? { relationships: relationships as Exclude<R, undefined> } : {}),
  }) as z.ZodObject<{
    id: typeof idSchema;
    type: z.ZodLiteral<T>;
    attributes: A;
    relationships: R extends z.ZodType ? R : z.ZodOptional<z.ZodNever>;
  }>;
}

/** A single-resource document `{data, meta?}`. */
export const singleDocument = <S extends z.ZodType>(resource: S) =>
  z.object({ data: resource, meta: z.record(z.string(), z.unknown()).optional() });

/** A list document `{data: [...], meta: {page}, links}`. */
export const listDocument = <S extends z.ZodType>(resource: S) =>
  z.object({ data: z.array(resource), meta: z.object({ page: pageMetaSchema }), links: listLinksSchema });

/**
 * Wraps a request-body schema so trpc-to-openapi's query-string coercion (which it applies to every
 * nested number and boolean, in bodies too) leaves it alone: `"false"` stays an error instead of
 * becoming `true`. The OpenAPI document shows the inner schema.
 */
export const strictBody = <S extends z.ZodType>(schema: S) => schema.transform((v) => v);

/**
 * A write document `{"data": {"type", "attributes", "relationships"?}, "meta"?}`.
 * `type` must match; relationships carry ids as `{"data": {"id", "type"}}`.
 */
export function writeDocument<T extends string, A extends z.ZodType, R extends z.ZodType | undefined = undefined>(
  type: T,
  attributes: A,
  relationships?: R,
) {
  return z.object({
    type: z.literal(type),
    id: z.string().optional(),
    attributes,
    ...(relationships ? { relationships: relationships as Exclude<R, undefined> } : {}),
  }) as z.ZodObject<{
    type: z.ZodLiteral<T>;
    id: z.ZodOptional<z.ZodString>;
    attributes: A;
    relationships: R extends z.ZodType ? R : z.ZodOptional<z.ZodNever>;
  }>;
}

/** A relationship reference in a write document. */
export const refSchema = (type: string) => z.object({ data: z.object({ id: idSchema, type: z.literal(type) }) });

/** Sort parameter: `field` ascending or `-field` descending, from `fields`. */
export const sortSchema = <F extends string>(fields: readonly [F, ...F[]]) =>
  z
    .enum([...fields, ...fields.map((f) => `-${f}`)] as [string, ...string[]])
    .optional()
    .meta({ description: `Sort by ${fields.join(', ')}; prefix \`-\` for descending.` });

/** Parses a sort value into column and direction. */
export function parseSort<F extends string>(
  sort: string | undefined,
  fallback: F,
): { field: F; direction: 'asc' | 'desc' } {
  if (!sort) return { field: fallback, direction: 'asc' };
  return sort.startsWith('-')
    ? { field: sort.slice(1) as F, direction: 'desc' }
    : { field: sort as F, direction: 'asc' };
}
