#!/usr/bin/env node
/**
 * Starts the whole platform on the embedded default (SQLite files and in-process caches under the
 * data directory; no MySQL or Redis): identity, secrets, catalog, then the gateway, each as its own
 * process talking typed tRPC over loopback. On first run identity creates an admin user holding
 * every role and the services' credentials; the admin's user app token and settings-UI password are
 * printed once and written to `<DATA_DIR>/admin-token` and `<DATA_DIR>/admin-password`. A second run reuses the data.
 *
 * Environment: DATA_DIR (default `.data` at the repository root), HOST (default 127.0.0.1),
 * PORT (gateway, default 3000), IDENTITY_PORT/SECRETS_PORT/CATALOG_PORT (default 4001/4002/4003),
 * LOG_LEVEL (default info). Also importable: `startPlatform(options)` for end-to-end tests.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function waitReady(url, child, name, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} while starting`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} was not ready at ${url} within ${timeoutMs} ms`);
}

/**
 * Starts the four services.
 * @param {object} options
 * @param {string} options.dataDir data directory (created if missing)
 * @param {string} [options.host]
 * @param {{gateway:number, identity:number, secrets:number, catalog:number}} options.ports
 * @param {Record<string,string>} [options.env] extra environment for every service (e.g. MYSQL_URL per service is not shared: use options.serviceEnv)
 * @param {Partial<Record<'identity'|'secrets'|'catalog'|'gateway', Record<string,string>>>} [options.serviceEnv]
 * @param {Partial<Record<'identity'|'secrets'|'catalog'|'gateway', string[]>>} [options.nodeArgs] extra node flags per service (e.g. `--cpu-prof`)
 * @param {'inherit'|'pipe'|'ignore'} [options.output] where child logs go (default: prefixed to this process's stdout)
 * @param {(service: string, text: string) => void} [options.onOutput] receives everything the children write (stdout and stderr, UTF-8, in chunks) instead of `output` — e.g. to capture logs in tests
 * @returns {Promise<{gatewayUrl:string, urls:Record<string,string>, adminToken:string, adminEmail:string, adminPassword:string|null, createdAdmin:boolean, children:Record<string,import('node:child_process').ChildProcess>, stop:()=>Promise<void>, restart:(name:string, signal?:NodeJS.Signals)=>Promise<void>}>}
 */
export async function startPlatform(options) {
  const host = options.host ?? '127.0.0.1';
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const tokenFile = join(dataDir, 'admin-token');
  const hadAdmin = existsSync(tokenFile);
  const urls = Object.fromEntries(
    ['identity', 'secrets', 'catalog', 'gateway'].map((n) => [n, `http://${host}:${options.ports[n]}`]),
  );
  const children = {};
  const envs = {};
  const stop = async () => {
    await Promise.all(
      Object.values(children).map(
        (child) =>
          new Promise((res) => {
            if (child.exitCode !== null || child.signalCode !== null) return res();
            child.once('exit', res);
            child.kill('SIGTERM');
          }),
      ),
    );
  };

  const start = async (name, env) => {
    envs[name] = env;
    const child = spawn(
      process.execPath,
      [...(options.nodeArgs?.[name] ?? []), join(root, 'apps', name, 'dist', 'index.js')],
      {
        cwd: root,
        env: {
          ...process.env,
          HOST: host,
          PORT: String(options.ports[name]),
          DATA_DIR: dataDir,
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
          ...options.env,
          ...env,
          ...(options.serviceEnv?.[name] ?? {}),
        },
        stdio: [
          'ignore',
          options.output === 'ignore' && !options.onOutput ? 'ignore' : 'pipe',
          options.output === 'ignore' && !options.onOutput ? 'ignore' : 'pipe',
        ],
      },
    );
    children[name] = child;
    if (options.onOutput) {
      for (const stream of [child.stdout, child.stderr]) {
        stream?.setEncoding('utf8');
        stream?.on('data', (text) => options.onOutput(name, text));
      }
    } else if (options.output !== 'ignore') {
      for (const stream of [child.stdout, child.stderr]) {
        stream?.on('data', (chunk) => {
          for (const line of String(chunk).split('\n')) if (line) process.stdout.write(`[${name}] ${line}\n`);
        });
      }
    }
    try {
      await waitReady(urls[name], child, name);
    } catch (error) {
      await stop();
      throw error;
    }
    return child;
  };

  await start('identity', { BOOTSTRAP_ADMIN: '1', BOOTSTRAP_SERVICE_CREDENTIALS: 'secrets,catalog' });
  const credential = (service) => readFileSync(join(dataDir, 'credentials', service), 'utf8').trim();
  await start('secrets', { IDENTITY_URL: urls.identity, SERVICE_CREDENTIAL: credential('secrets') });
  await start('catalog', {
    IDENTITY_URL: urls.identity,
    SECRETS_URL: urls.secrets,
    SERVICE_CREDENTIAL: credential('catalog'),
  });
  await start('gateway', {
    IDENTITY_URL: urls.identity,
    SECRETS_URL: urls.secrets,
    CATALOG_URL: urls.catalog,
    PUBLIC_URL: urls.gateway,
  });
  const passwordFile = join(dataDir, 'admin-password');
  return {
    gatewayUrl: urls.gateway,
    urls,
    adminToken: readFileSync(tokenFile, 'utf8').trim(),
    adminEmail: process.env.BOOTSTRAP_ADMIN_EMAIL ?? options.env?.BOOTSTRAP_ADMIN_EMAIL ?? 'admin@runbook.local',
    adminPassword: existsSync(passwordFile) ? readFileSync(passwordFile, 'utf8').trim() : null,
    createdAdmin: !hadAdmin,
    children,
    stop,
    /** Kills one service with `signal` (default SIGKILL: no graceful shutdown) and starts it again with the same environment. */
    restart: async (name, signal = 'SIGKILL') => {
      const child = children[name];
      if (child && child.exitCode === null && child.signalCode === null) {
        await new Promise((res) => {
          child.once('exit', res);
          child.kill(signal);
        });
      }
      await start(name, envs[name]);
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = (name, fallback) => {
    const v = process.env[name];
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || n > 65535) {
      console.error(`${name} must be a port number, got ${JSON.stringify(v)}`);
      process.exit(2);
    }
    return n;
  };
  const platform = await startPlatform({
    dataDir: process.env.DATA_DIR ?? join(root, '.data'),
    host: process.env.HOST ?? '127.0.0.1',
    ports: {
      gateway: port('PORT', 3000),
      identity: port('IDENTITY_PORT', 4001),
      secrets: port('SECRETS_PORT', 4002),
      catalog: port('CATALOG_PORT', 4003),
    },
  }).catch((error) => {
    console.error(`Failed to start the platform: ${error.message}`);
    process.exit(1);
  });
  const line = '─'.repeat(72);
  console.log(`\n${line}\nRunbook Platform is running.\n`);
  console.log(`  REST API      ${platform.gatewayUrl}/core/runbooks`);
  console.log(`  OpenAPI       ${platform.gatewayUrl}/openapi.json`);
  console.log(`  API docs, Try ${platform.gatewayUrl}/docs`);
  console.log(`  Settings UI   ${platform.gatewayUrl}/settings`);
  console.log(`  tRPC          ${platform.gatewayUrl}/trpc`);
  if (platform.createdAdmin) {
    console.log(
      `\n  Admin user app token (shown once; also saved to ${join(process.env.DATA_DIR ?? '.data', 'admin-token')}):\n`,
    );
    console.log(`    ${platform.adminToken}\n`);
    console.log(
      `  Settings sign-in (shown once; also saved to ${join(process.env.DATA_DIR ?? '.data', 'admin-password')}):\n`,
    );
    console.log(`    email ${platform.adminEmail}   password ${platform.adminPassword}\n`);
  } else {
    console.log(`\n  Admin token: see ${join(process.env.DATA_DIR ?? '.data', 'admin-token')}`);
    console.log(
      `  Admin sign-in: ${platform.adminEmail}, password in ${join(process.env.DATA_DIR ?? '.data', 'admin-password')}`,
    );
  }
  console.log(`${line}\n`);
  let stopping = false;
  const shutdown = async (code) => {
    if (stopping) return;
    stopping = true;
    await platform.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));
  for (const [name, child] of Object.entries(platform.children)) {
    child.once('exit', (code, signal) => {
      if (stopping) return;
      console.error(`${name} stopped unexpectedly (code ${code}, signal ${signal}); stopping the platform.`);
      shutdown(1);
    });
  }
}
