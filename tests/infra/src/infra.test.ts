/**
 * No container engine runs on the development and CI machines, so the files in infra/ are checked
 * statically: they parse, every service is deployed with its health probes and port, every
 * environment variable they set is documented in the README, and the Dockerfile copies files that exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

const root = join(import.meta.dirname, '..', '..', '..');
const infra = join(root, 'infra');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const services = { identity: 4001, secrets: 4002, catalog: 4003, gateway: 3000 } as const;

interface Container {
  name: string;
  image: string;
  ports: Array<{ containerPort: number }>;
  env: Array<{ name: string; value?: string }>;
  readinessProbe?: { httpGet?: { path: string } };
  livenessProbe?: { httpGet?: { path: string } };
}

const documented = (name: string) => readme.includes(`\`${name}\``);

describe('kubernetes manifests', () => {
  const docs = readdirSync(join(infra, 'k8s'))
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(join(infra, 'k8s', f), 'utf8')).map((d) => d.toJS()));

  it.each(Object.entries(services))('deploys %s with probes, its port and documented env', (name, port) => {
    const deployment = docs.find((d) => d?.kind === 'Deployment' && d.metadata?.name === name);
    expect(deployment, `Deployment ${name}`).toBeDefined();
    const container: Container = deployment.spec.template.spec.containers[0];
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(container.ports[0]?.containerPort).toBe(port);
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
    expect(env.SERVICE).toBe(name);
    expect(env.PORT).toBe(String(port));
    for (const e of container.env)
      if (e.name !== 'SERVICE') expect(documented(e.name), `${e.name} documented in README`).toBe(true);
    const svc = docs.find((d) => d?.kind === 'Service' && d.metadata?.name === name);
    expect(svc?.spec.selector).toEqual(deployment.spec.selector.matchLabels);
  });

  it('references only the ConfigMap it defines', () => {
    const config = docs.find((d) => d?.kind === 'ConfigMap');
    const keys = new Set(Object.keys(config.data));
    for (const d of docs.filter((x) => x?.kind === 'Deployment')) {
      for (const e of d.spec.template.spec.containers[0].env) {
        const ref = e.valueFrom?.configMapKeyRef;
        if (ref) expect(keys.has(ref.key), `${d.metadata.name}: ${ref.key}`).toBe(true);
      }
    }
  });
});

describe('compose file', () => {
  const compose = parse(readFileSync(join(infra, 'compose.yaml'), 'utf8'));
  it('runs the four services on MySQL and Redis, one database each', () => {
    const init = readFileSync(join(infra, 'mysql-init.sql'), 'utf8');
    for (const name of Object.keys(services)) {
      const svc = compose.services[name];
      expect(svc.environment.SERVICE).toBe(name);
      expect(svc.environment.PORT).toBe(String(services[name as keyof typeof services]));
      const url: string | undefined = svc.environment.MYSQL_URL;
      if (name === 'gateway') expect(url).toBeUndefined();
      else expect(init).toContain(`CREATE DATABASE IF NOT EXISTS ${url?.split('/').pop()}`);
      for (const key of Object.keys(svc.environment)) if (key !== 'SERVICE') expect(documented(key), key).toBe(true);
    }
    expect(compose.services.mysql).toBeDefined();
    expect(compose.services.redis).toBeDefined();
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(infra, 'Dockerfile'), 'utf8');
  it('builds on Node 20 and starts the chosen service from its build output', () => {
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toMatch(/pnpm@10\.34\.9/);
    expect(dockerfile).toMatch(/CMD .*apps\/\$\{SERVICE.*\/dist\/index\.js/);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(dockerfile).toMatch(/^USER node$/m);
    for (const name of Object.keys(services)) expect(existsSync(join(root, 'apps', name, 'package.json'))).toBe(true);
  });

  it('copies only files that exist', () => {
    for (const line of dockerfile.split('\n').filter((l) => l.startsWith('COPY ') && !l.includes('--from'))) {
      const sources = line
        .replace(/^COPY /, '')
        .split(/\s+/)
        .slice(0, -1);
      for (const source of sources) expect(existsSync(join(root, source)), source).toBe(true);
    }
  });

  it('copies every dependency patch before `pnpm install` (a missing patch file fails the install)', () => {
    const workspace = parse(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')) as {
      patchedDependencies?: Record<string, string>;
    };
    const copied = dockerfile
      .slice(0, dockerfile.indexOf('pnpm install'))
      .split('\n')
      .filter((l) => l.startsWith('COPY ') && !l.includes('--from'))
      .flatMap((l) =>
        l
          .replace(/^COPY /, '')
          .split(/\s+/)
          .slice(0, -1),
      );
    for (const file of Object.values(workspace.patchedDependencies ?? {})) {
      expect(existsSync(join(root, file)), file).toBe(true);
      expect(
        copied.some((source) => file === source || file.startsWith(`${source.replace(/\/$/, '')}/`)),
        file,
      ).toBe(true);
    }
  });
});
