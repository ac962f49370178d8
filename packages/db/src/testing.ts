/**
 * Test databases. Every repository and router test loops over {@link testDialects}: SQLite always,
 * MySQL when reachable — and when `RUNBOOK_REQUIRE_MYSQL=1` (set by CI) MySQL is listed even if it is
 * down, so its tests fail instead of silently skipping.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely, Migration } from 'kysely';
import { createConnection } from 'mysql2/promise';
import { type CreateDbOptions, createDb, type Dialect, migrateToLatest } from './index.js';

/** Base URL of the MySQL server used by tests (no database part). Default `mysql://root@127.0.0.1:3306`. */
export const testMysqlUrl = (): string => process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306';

let mysqlReachable: boolean | undefined;

async function probeMysql(): Promise<boolean> {
  try {
    const conn = await createConnection({ uri: testMysqlUrl(), connectTimeout: 1500 });
    await conn.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * The engines tests must run on: `['sqlite']`, plus `'mysql'` when it answers or is required.
 * Top-level await it in a test file: `describe.each(await testDialects())(…)`.
 */
export async function testDialects(): Promise<Dialect[]> {
  if (process.env.RUNBOOK_REQUIRE_MYSQL === '1') return ['sqlite', 'mysql'];
  mysqlReachable ??= await probeMysql();
  return mysqlReachable ? ['sqlite', 'mysql'] : ['sqlite'];
}

/** A throwaway database with migrations applied; `destroy()` closes it (and drops it on MySQL). */
export interface TestDatabase<DB> {
  db: Kysely<DB>;
  dialect: Dialect;
  /** MySQL URL of the database (for a second process or instance), or the SQLite file. */
  location: string;
  destroy(): Promise<void>;
}

/**
 * Creates a fresh, migrated database: an in-memory SQLite database, or a new MySQL database named
 * `rbt_<random>` on {@link testMysqlUrl}.
 */
export async function createTestDatabase<DB>(
  dialect: Dialect,
  migrations: Record<string, Migration>,
  options: CreateDbOptions & { sqliteFile?: string } = {},
): Promise<TestDatabase<DB>> {
  if (dialect === 'sqlite') {
    const file = options.sqliteFile ?? ':memory:';
    const db = createDb<DB>({ dialect: 'sqlite', file }, options);
    await migrateToLatest(db, migrations);
    return { db, dialect, location: file, destroy: () => db.destroy() };
  }
  const name = `rbt_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection({ uri: testMysqlUrl(), connectTimeout: 5000 });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  const url = `${testMysqlUrl().replace(/\/$/, '')}/${name}`;
  const db = createDb<DB>({ dialect: 'mysql', url, poolSize: 5 }, options);
  await migrateToLatest(db, migrations);
  return {
    db,
    dialect,
    location: url,
    destroy: async () => {
      await db.destroy();
      const conn = await createConnection({ uri: testMysqlUrl() });
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}

/** Creates an empty MySQL database for a test that starts real service processes; returns its URL and a dropper. */
export async function createEmptyMysqlDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `rbt_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection({ uri: testMysqlUrl(), connectTimeout: 5000 });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  return {
    url: `${testMysqlUrl().replace(/\/$/, '')}/${name}`,
    drop: async () => {
      const conn = await createConnection({ uri: testMysqlUrl() });
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}
