/**
 * DTO → JSON:API document mapping and list links (shared `cutover-api-facts.md`: lists carry
 * `meta.page` and `links.self/first/prev/next/last`; clients follow `links.next` until it is absent).
 * `links.next` always carries a keyset cursor (`page[after]`), so following it costs the same at
 * any depth; `prev`/`last` are offset links.
 */
import { PAGE_SIZE_DEFAULT, type Page } from '@runbook/contracts';

type Query = Record<string, string | number | boolean | undefined>;

function href(base: string, path: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const qs = params.toString().replaceAll('%5B', '[').replaceAll('%5D', ']');
  return `${base}${path}${qs ? `?${qs}` : ''}`;
}

/** Page request fields as the gateway receives them from the query string. */
export interface PageParams {
  'page[number]'?: number | undefined;
  'page[size]'?: number | undefined;
  'page[after]'?: string | undefined;
}

/** The service-level page request for REST page parameters. */
export const pageRequestOf = (q: PageParams) => ({
  number: q['page[number]'] ?? 1,
  size: q['page[size]'] ?? PAGE_SIZE_DEFAULT,
  ...(q['page[after]'] ? { after: q['page[after]'] } : {}),
});

/**
 * A list document from a service page.
 * @param path the REST path of the list, e.g. `/core/runbooks`.
 * @param filters the filter/sort query parameters to repeat in every link.
 */
export function listDocument<T, R>(
  base: string,
  path: string,
  filters: Query,
  params: PageParams,
  page: Page<T>,
  toResource: (item: T) => R,
) {
  const totalPages = Math.max(1, Math.ceil(page.total / page.size));
  const size = page.size;
  const link = (extra: Query) => href(base, path, { ...filters, ...extra, 'page[size]': size });
  const self = params['page[after]']
    ? link({ 'page[after]': params['page[after]'] })
    : link({ 'page[number]': page.number });
  return {
    data: page.items.map(toResource),
    meta: { page: { number: page.number, size, total: page.total, total_pages: totalPages } },
    links: {
      self,
      first: link({ 'page[number]': 1 }),
      last: link({ 'page[number]': totalPages }),
      ...(page.number > 1 ? { prev: link({ 'page[number]': page.number - 1 }) } : {}),
      ...(page.next_cursor ? { next: link({ 'page[after]': page.next_cursor }) } : {}),
    },
  };
}

/** `{data: {id, type}}` for a to-one relationship. */
export const one = <T extends string>(type: T, id: string | null) => ({ data: id === null ? null : { id, type } });
/** `{data: [{id, type}, …]}` for a to-many relationship. */
export const many = <T extends string>(type: T, ids: string[]) => ({ data: ids.map((id) => ({ id, type })) });
