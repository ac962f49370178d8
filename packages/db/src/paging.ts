/**
 * Offset and keyset pagination over any Kysely select. Keyset cursors (`page[after]`) make every
 * page cost the same at any depth (on MySQL/MariaDB given the list's seek index: ADR 0009);
 * `page[number]` is an offset (cost grows with depth; the skipped entries are read from the index
 * alone, the page's rows by id).
 */
import {
  FromNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  RawNode,
  type RootOperationNode,
  type SelectQueryBuilder,
  SelectQueryNode,
  sql,
  TableNode,
  type UnknownRow,
} from 'kysely';

/** What a list request asks for. `after` (an opaque cursor from a previous page) wins over `number`. */
export interface PageInput {
  number: number;
  size: number;
  after?: string | undefined;
}

/** One page: `total` is counted when the first page of a walk is read and carried in the cursor after that. */
export interface PageOutput<T> {
  items: T[];
  number: number;
  size: number;
  total: number;
  next_cursor: string | null;
}

/** Sort order of a list: a column of the row (unique together with `idColumn`) and a direction. */
export interface KeysetSort {
  /** Fully qualified column, e.g. `runbooks.name`. */
  column: string;
  /** The same column's name in the selected row, e.g. `name`. */
  key: string;
  direction: 'asc' | 'desc';
  /** Tie-breaker id column (fully qualified) and its row key; ids must be integers. */
  idColumn: string;
  idKey: string;
  /**
   * MySQL/MariaDB only (pass it only there, e.g. via {@link mysqlOnly}): the index whose leading
   * columns are the query's equality filter followed by the sort column and the id, which cursor
   * pages are forced onto (`FORCE INDEX`). Without it MariaDB 10.11 picks `ref` access on the filter
   * column alone for `WHERE filter = ? AND id > ? ORDER BY id LIMIT n` and steps through every
   * earlier index entry of that filter value to reach the cursor — measured on 100,000 runbooks of
   * one workspace: 0.5 ms at the start, 3.7 ms at 70 % of the walk — because its cost model ignores
   * that the `LIMIT` stops after one page. Forced, the page is a range seek (docs/adr/0009). An
   * offset page (`page[number]`) reads its ids through the same index.
   */
  seekIndex?: string | undefined;
}

/** `index` on MySQL/MariaDB, undefined on SQLite (whose planner seeks the composite index itself). */
export const mysqlOnly = (dialect: 'sqlite' | 'mysql', index: string): string | undefined =>
  dialect === 'mysql' ? index : undefined;

/** Rewrites `FROM <table>` of the root select into `FROM \`<table>\` FORCE INDEX (\`<index>\`)` (MySQL syntax). */
class ForceIndexPlugin implements KyselyPlugin {
  constructor(
    private readonly table: string,
    private readonly index: string,
  ) {}

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!SelectQueryNode.is(node) || !node.from) return node;
    const froms = node.from.froms.map((from) =>
      TableNode.is(from) && !from.table.schema && from.table.identifier.name === this.table
        ? RawNode.createWithSql(`\`${this.table}\` FORCE INDEX (\`${this.index}\`)`)
        : from,
    );
    return { ...node, from: FromNode.create(froms) };
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

/** The table of the list's id column (`runbooks.id` → `runbooks`). */
const tableOf = (sort: KeysetSort): string => sort.idColumn.split('.')[0] ?? '';

const TOTAL = '__page_total';
const OFFSET_IDS = '__page_ids';
const OFFSET_ID = '__page_id';

type Cursor = [value: string | number | null, id: number, number: number, total: number];

/** Thrown for a cursor that was not produced by this server (the caller maps it to a 400). */
export class InvalidCursorError extends Error {
  constructor() {
    super('page[after] is not a cursor this server produced');
    this.name = 'InvalidCursorError';
  }
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(s: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(c) &&
      c.length === 4 &&
      (typeof c[0] === 'string' || typeof c[0] === 'number' || c[0] === null) &&
      Number.isSafeInteger(c[1]) &&
      Number.isSafeInteger(c[2]) &&
      Number.isSafeInteger(c[3])
    ) {
      return c as Cursor;
    }
  } catch {
    /* fall through */
  }
  throw new InvalidCursorError();
}

/**
 * Reads one page of `query` (filters applied, no order or limit) in one query. Without a cursor the
 * total is counted in the same statement; with one it is carried in the cursor. Only an offset page
 * past the end costs a second query (to count).
 * @throws {InvalidCursorError} for a cursor this function did not produce.
 */
export async function paginate<DB, TB extends keyof DB, O extends Record<string, unknown>>(
  query: SelectQueryBuilder<DB, TB, O>,
  sort: KeysetSort,
  page: PageInput,
): Promise<PageOutput<O>> {
  const q = query as unknown as SelectQueryBuilder<any, any, any>;
  const cursor = page.after ? decodeCursor(page.after) : undefined;
  const op = sort.direction === 'asc' ? '>' : '<';
  let pageQuery = q.orderBy(sort.column, sort.direction).limit(page.size + 1);
  if (sort.column !== sort.idColumn) pageQuery = pageQuery.orderBy(sort.idColumn, sort.direction);
  let number = page.number;
  let total: number | undefined;
  if (cursor) {
    const [value, id, cursorNumber, cursorTotal] = cursor;
    number = cursorNumber;
    total = cursorTotal;
    if (sort.seekIndex) pageQuery = pageQuery.withPlugin(new ForceIndexPlugin(tableOf(sort), sort.seekIndex));
    pageQuery =
      sort.column === sort.idColumn
        ? pageQuery.where(sort.idColumn, op, id)
        : pageQuery.where((eb: any) =>
            eb.or([eb(sort.column, op, value), eb.and([eb(sort.column, '=', value), eb(sort.idColumn, op, id)])]),
          );
  } else if (number > 1) {
    // Deferred join: the offset walks the list's index for ids alone, then only the page's rows are
    // read, by id. `SELECT * … LIMIT n OFFSET k` read every skipped row in full: on MariaDB, page
    // 4,000 of 100,000 runbooks by name took 114–270 ms for its rows, the ids alone and 26 rows by id
    // 16–31 ms. The outer query keeps no filter (the ids satisfy them already), so MariaDB drives
    // from the ids instead of scanning the list a second time.
    let ids = q
      .clearSelect()
      .select(`${sort.idColumn} as ${OFFSET_ID}`)
      .orderBy(sort.column, sort.direction)
      // A literal limit: SQLite sizes the derived table by it and so reads it first; with a bound
      // parameter it scanned the whole list in sort order, probing the ids (2× the plain offset).
      .limit(sql.lit(page.size + 1))
      .offset((number - 1) * page.size);
    if (sort.column !== sort.idColumn) ids = ids.orderBy(sort.idColumn, sort.direction);
    // MariaDB may read the ids from another index that covers them and sort them all (seen: the
    // (workspace_id, created_at, id) index for a list by id); the seek index is in sort order.
    if (sort.seekIndex) ids = ids.withPlugin(new ForceIndexPlugin(tableOf(sort), sort.seekIndex));
    pageQuery = pageQuery
      .clearWhere()
      .innerJoin(ids.as(OFFSET_IDS), (join: any) => join.onRef(`${OFFSET_IDS}.${OFFSET_ID}`, '=', sort.idColumn));
  }
  // The first page of a walk also needs the total. Counting in a scalar subquery of the same
  // statement keeps the read at one round trip; both engines evaluate an uncorrelated subquery once.
  const counting = total === undefined;
  if (counting) {
    const countQuery = q.clearSelect().select((eb: any) => eb.fn.countAll().as('n'));
    pageQuery = pageQuery.select(() => countQuery.as(TOTAL));
  }
  const rows = (await pageQuery.execute()) as Array<O & { [TOTAL]?: number | string }>;
  if (counting) {
    const first = rows[0];
    if (first) total = Number(first[TOTAL]);
    else if (number === 1) total = 0;
    else {
      // An offset past the end: the page is empty, so the count needs its own query.
      const counted = (await q
        .clearSelect()
        .select((eb: any) => eb.fn.countAll().as('n'))
        .executeTakeFirst()) as { n: number | string };
      total = Number(counted.n);
    }
    // An offset page is always a counting one (it has no cursor): its rows also carry the join's id.
    for (const row of rows) {
      delete row[TOTAL];
      delete (row as Record<string, unknown>)[OFFSET_ID];
    }
  }
  const hasMore = rows.length > page.size;
  const items = hasMore ? rows.slice(0, page.size) : rows;
  const last = items[items.length - 1];
  const next_cursor =
    hasMore && last
      ? encodeCursor([
          (last[sort.key] as string | number | null) ?? null,
          Number(last[sort.idKey]),
          number + 1,
          total ?? 0,
        ])
      : null;
  return { items, number, size: page.size, total: total ?? 0, next_cursor };
}
