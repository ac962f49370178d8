/** Starts the real gateway (apps/gateway/dist) as a forked child that reports 'ready' over IPC. */
import { join, resolve } from 'node:path';

await import(join(resolve(import.meta.dirname, '../../apps/gateway/dist'), 'index.js'));
const deadline = Date.now() + 15_000;
for (;;) {
  try {
    if ((await fetch(`http://127.0.0.1:${process.env.PORT}/healthz`)).ok) break;
  } catch {}
  if (Date.now() > deadline) throw new Error('gateway did not start');
  await new Promise((r) => setTimeout(r, 50));
}
process.send?.('ready');
