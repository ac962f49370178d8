/**
 * Service-level pagination, shared by every list procedure between services. Services answer a
 * {@link PageRequest} with a {@link Page}; the gateway turns it into `meta.page` and `links`.
 */
import { z } from 'zod';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './jsonapi.js';

/** `number` (1-based offset page) or `after` (opaque keyset cursor, wins when present). */
export const pageRequestSchema = z.object({
  number: z.number().int().min(1).max(1_000_000).default(1),
  size: z.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
  after: z.string().max(512).optional(),
});
/** A page request as callers write it (defaults not yet applied): see {@link pageRequestSchema}. */
export type PageRequest = z.input<typeof pageRequestSchema>;

/** A page of items: `total` matching items, this page's `number`, and the cursor of the next page if any. */
export const pageSchema = <S extends z.ZodType>(item: S) =>
  z.object({
    items: z.array(item),
    number: z.number().int(),
    size: z.number().int(),
    total: z.number().int(),
    next_cursor: z.string().nullable(),
  });
/** TypeScript type of a {@link pageSchema} page of `T`. */
export interface Page<T> {
  items: T[];
  number: number;
  size: number;
  total: number;
  next_cursor: string | null;
}
