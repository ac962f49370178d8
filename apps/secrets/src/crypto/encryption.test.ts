import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS, createSecretsTestKit, type SecretsTestKit, testKeyring } from '../test-support.js';
import {
  DecryptionError,
  decryptValue,
  encryptValue,
  LOCAL_KEY_FILE,
  loadKeyring,
  parseKeyring,
} from './encryption.js';
import { reencryptAll } from './rotation.js';

describe('AES-256-GCM values', () => {
  const keyring = testKeyring(['old', 'new']);

  it('round-trips any UTF-8 value, with a fresh IV each time', () => {
    for (const value of ['', 'plain', 'ünïcødé ✓ 🎉', 'x'.repeat(16_384)]) {
      const sealed = encryptValue(keyring, 'p', value);
      expect(sealed.keyId).toBe('new');
      expect(decryptValue(keyring, 'p', sealed)).toBe(value);
    }
    expect(encryptValue(keyring, 'p', 'same').ciphertext).not.toBe(encryptValue(keyring, 'p', 'same').ciphertext);
  });

  it('fails for an unknown key id, the wrong key, a tampered ciphertext and another row\u2019s name', () => {
    const sealed = encryptValue(keyring, 'p', 'hunter2-plaintext');
    expect(() => decryptValue(keyring, 'p', { ...sealed, keyId: 'missing' })).toThrow(DecryptionError);
    expect(() => decryptValue(keyring, 'p', { ...sealed, keyId: 'old' })).toThrow(DecryptionError);
    const raw = Buffer.from(sealed.ciphertext, 'base64');
    for (const at of [0, 13, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[at] = (tampered[at] as number) ^ 1;
      expect(() => decryptValue(keyring, 'p', { ...sealed, ciphertext: tampered.toString('base64') })).toThrow(
        DecryptionError,
      );
    }
    expect(() => decryptValue(keyring, 'p', { ...sealed, ciphertext: raw.subarray(0, 20).toString('base64') })).toThrow(
      DecryptionError,
    );
    expect(() => decryptValue(keyring, 'other', sealed)).toThrow(DecryptionError);
    try {
      decryptValue(keyring, 'other', sealed);
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});

describe('keyring configuration', () => {
  const k = (byte: number) => Buffer.alloc(32, byte).toString('base64');

  it('parses id:base64 lists and picks the active key', () => {
    const ring = parseKeyring(`a:${k(1)}, b:${k(2)}`, 'b');
    expect(ring.activeKeyId).toBe('b');
    expect([...ring.keys.keys()]).toEqual(['a', 'b']);
    expect(parseKeyring(`only:${k(3)}`).activeKeyId).toBe('only');
  });

  it('rejects malformed entries, short keys, duplicates and a missing or unknown active id — never printing a key', () => {
    const bad: Array<[string, string | undefined]> = [
      ['', undefined],
      [`nocolon${k(1)}`, undefined],
      [`a:${Buffer.alloc(16).toString('base64')}`, undefined],
      [`a:${k(1)},a:${k(2)}`, 'a'],
      [`a:${k(1)},b:${k(2)}`, undefined],
      [`a:${k(1)}`, 'z'],
      [`bad id:${k(1)}`, undefined],
    ];
    for (const [spec, active] of bad) {
      expect(() => parseKeyring(spec, active)).toThrow();
      try {
        parseKeyring(spec, active);
      } catch (error) {
        expect((error as Error).message).not.toContain(k(1));
      }
    }
  });

  it('generates a local key once (mode 0600) when no key is configured, and warns', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'secrets-key-'));
    try {
      const warnings: string[] = [];
      const first = await loadKeyring({ DATA_DIR: join(dir, 'data') }, (m) => warnings.push(m));
      const second = await loadKeyring({ DATA_DIR: join(dir, 'data') }, (m) => warnings.push(m));
      expect(first.keys.get(first.activeKeyId)).toEqual(second.keys.get(second.activeKeyId));
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain('SECRETS_ENCRYPTION_KEYS');
      const file = join(dir, 'data', LOCAL_KEY_FILE);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await readFile(file, 'utf8')).toMatch(/^local-1:[A-Za-z0-9+/=]{44}\n$/);
      expect(warnings[0]).toContain('just generated');
      expect(warnings[1]).toContain('generated earlier');
      const configured = await loadKeyring({ DATA_DIR: dir, SECRETS_ENCRYPTION_KEYS: `prod:${k(9)}` }, () => {
        throw new Error('no warning expected');
      });
      expect(configured.activeKeyId).toBe('prod');
      // On MySQL without configured keys: a second, louder warning.
      const onMysql: string[] = [];
      await loadKeyring({ DATA_DIR: join(dir, 'data'), MYSQL_URL: 'mysql://x@db/secrets' }, (m) => onMysql.push(m));
      expect(onMysql[1]).toContain('every host');
      // In production a key is never generated.
      await expect(loadKeyring({ DATA_DIR: join(dir, 'prod'), NODE_ENV: 'production' }, () => {})).rejects.toThrow(
        /SECRETS_ENCRYPTION_KEYS is required in production/,
      );
      await expect(stat(join(dir, 'prod', LOCAL_KEY_FILE))).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.each(await testDialects())('key rotation on %s', (dialect) => {
  let kit: SecretsTestKit;
  const before = testKeyring(['k1']);
  beforeAll(async () => {
    kit = await createSecretsTestKit(dialect, { keyring: before });
  });
  afterAll(() => kit.destroy());

  it('re-encrypts every row under the new active key in batches, keeping versions and values', async () => {
    const admin = kit.caller(CREDENTIALS.admin);
    for (let i = 0; i < 7; i++)
      await admin.systemParameters.create({ name: `rot_${i}`, value: `value-${i}`, secret: i % 2 === 0 });
    await admin.systemParameters.update({ id_or_name: 'rot_3', value: 'changed' });
    const resolveAll = () =>
      kit.caller(CREDENTIALS.service).resolution.resolve({
        templates: [{ template: [0, 1, 2, 3, 4, 5, 6].map((i) => `{{system.rot_${i}}}`).join('|'), context: 'text' }],
      });
    const expected = (await resolveAll()).results[0];
    expect(expected).toBe('value-0|value-1|value-2|changed|value-4|value-5|value-6');

    const versionsBefore = await kit.deps.db
      .selectFrom('system_parameters')
      .select(['name', 'version'])
      .orderBy('name')
      .execute();
    // Roll the "replica" onto a keyring with the new key active, then rotate.
    kit.deps.keyring = {
      activeKeyId: 'k2',
      keys: new Map([...before.keys, ['k2', testKeyring(['k2']).keys.get('k2') as Buffer]]),
    };
    const result = await reencryptAll(kit.deps, { batchSize: 3 });
    expect(result).toEqual({ reencrypted: 7, skipped: 0, remaining: 0 });
    const rows = await kit.deps.db
      .selectFrom('system_parameters')
      .select(['name', 'version', 'key_id'])
      .orderBy('name')
      .execute();
    expect(rows.every((r) => r.key_id === 'k2')).toBe(true);
    expect(rows.map((r) => [r.name, r.version])).toEqual(versionsBefore.map((r) => [r.name, r.version]));
    expect(await reencryptAll(kit.deps)).toEqual({ reencrypted: 0, skipped: 0, remaining: 0 });

    // The old key can go: values still resolve (the cache was invalidated, so nothing old is read).
    kit.deps.keyring = { activeKeyId: 'k2', keys: new Map([['k2', kit.deps.keyring.keys.get('k2') as Buffer]]) };
    expect((await resolveAll()).results[0]).toBe(expected);
  });
});
