/**
 * Shared by the browser tests: the platform on free loopback ports (embedded default) and Debian's
 * chromium driven by playwright-core (no browser download; flags as the machine notes require).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
// @ts-expect-error — plain ESM script without type declarations
import { startPlatform } from '../../../scripts/start-local.mjs';

/** Where chromium is expected (`CHROMIUM_PATH` overrides). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumFound = existsSync(chromiumPath);
/** Screenshots go here (git-ignored test artifacts). */
export const artifacts = fileURLToPath(new URL('../../../test-artifacts/browser/', import.meta.url));

/** What `startPlatform` resolves (the fields these tests use). */
export interface Platform {
  gatewayUrl: string;
  adminToken: string;
  adminEmail: string;
  adminPassword: string;
  stop(): Promise<void>;
}

/** A free loopback TCP port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the four services on the embedded default in a fresh temporary data directory.
 * @returns the platform and a `stop()` that also removes the data directory.
 */
export async function startBrowserPlatform(name: string): Promise<{ platform: Platform; stop(): Promise<void> }> {
  await mkdir(artifacts, { recursive: true });
  const dataDir = await mkdtemp(join(tmpdir(), `runbook-${name}-`));
  const platform = (await startPlatform({
    dataDir,
    ports: {
      gateway: await freePort(),
      identity: await freePort(),
      secrets: await freePort(),
      catalog: await freePort(),
    },
    env: { LOG_LEVEL: 'warn' },
    output: process.env.E2E_LOGS ? 'inherit' : 'ignore',
  })) as Platform;
  return {
    platform,
    async stop() {
      await platform.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Launches headless chromium from Debian's package. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    timeout: 20_000,
  });
}
