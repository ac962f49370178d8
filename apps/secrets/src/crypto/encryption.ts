/**
 * Encryption at rest for system parameter values (DESIGN §5): AES-256-GCM from `node:crypto` with a
 * random 12-byte IV per value and the parameter's name as additional authenticated data, so a
 * ciphertext copied onto another row fails to decrypt. Stored form: base64 of `iv | tag(16) |
 * ciphertext`, with the id of the key beside it (`key_id`) so keys can be rotated.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The keys this process can decrypt with, and the one it encrypts with. */
export interface Keyring {
  activeKeyId: string;
  /** Key id → 32-byte key. */
  keys: ReadonlyMap<string, Buffer>;
}

/** An encrypted value as stored: base64 ciphertext and the id of the key it was made with. */
export interface SealedValue {
  ciphertext: string;
  keyId: string;
}

/** Raised when a value cannot be decrypted (unknown key id, wrong key, tampered data). Its message never holds a value. */
export class DecryptionError extends Error {
  constructor(reason: string) {
    super(`cannot decrypt a system parameter value: ${reason}`);
    this.name = 'DecryptionError';
  }
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** Name of the generated key file under `DATA_DIR` (embedded default only). */
export const LOCAL_KEY_FILE = 'secrets-encryption-key';

/**
 * Encrypts `plaintext` for the parameter called `name` with the active key.
 * @returns `{ciphertext: base64 of iv|tag|ciphertext, keyId}`.
 */
export function encryptValue(keyring: Keyring, name: string, plaintext: string): SealedValue {
  const key = keyring.keys.get(keyring.activeKeyId);
  if (!key) throw new Error(`the active encryption key ${keyring.activeKeyId} is not in the keyring`);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(name, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'), keyId: keyring.activeKeyId };
}

/**
 * Decrypts a value stored for the parameter called `name`.
 * @returns the plaintext (UTF-8).
 * @throws {DecryptionError} for an unknown key id, a wrong key, another row's ciphertext or tampered data.
 */
export function decryptValue(keyring: Keyring, name: string, sealed: SealedValue): string {
  const key = keyring.keys.get(sealed.keyId);
  if (!key) throw new DecryptionError(`key ${JSON.stringify(sealed.keyId)} is not configured`);
  const raw = Buffer.from(sealed.ciphertext, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new DecryptionError('ciphertext is truncated');
  try {
    const decipher = createDecipheriv(ALGORITHM, key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new DecryptionError('authentication failed (wrong key, wrong parameter or tampered data)');
  }
}

/**
 * Parses a key list `id:base64key` separated by commas or newlines (the `SECRETS_ENCRYPTION_KEYS`
 * format). The active key is `activeKeyId`, or the only key when exactly one is given.
 * @throws {Error} naming the offending key id (never the key) for a malformed entry, a key that is
 *   not 32 bytes, a duplicate id, or a missing/unknown active key id.
 */
export function parseKeyring(spec: string, activeKeyId?: string): Keyring {
  const keys = new Map<string, Buffer>();
  const entries = spec
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    if (!KEY_ID.test(id))
      throw new Error(`encryption key #${index + 1} must look like "<id>:<base64 key>" with id [A-Za-z0-9_.-]{1,64}`);
    const key = Buffer.from(entry.slice(colon + 1), 'base64');
    if (key.length !== KEY_BYTES)
      throw new Error(`encryption key ${id} must be ${KEY_BYTES} bytes of base64 (got ${key.length})`);
    if (keys.has(id)) throw new Error(`encryption key id ${id} is listed twice`);
    keys.set(id, key);
  }
  if (keys.size === 0) throw new Error('no encryption key configured');
  const active = activeKeyId || (keys.size === 1 ? [...keys.keys()][0] : undefined);
  if (!active) throw new Error('SECRETS_ACTIVE_KEY_ID is required when several encryption keys are configured');
  if (!keys.has(active)) throw new Error(`the active key id ${active} is not among the configured keys`);
  return { activeKeyId: active, keys };
}

/**
 * The keyring of the process: from `SECRETS_ENCRYPTION_KEYS` / `SECRETS_ACTIVE_KEY_ID` when set.
 * Otherwise — the embedded default only — from `<DATA_DIR>/secrets-encryption-key`, generated on
 * first use (32 random bytes, id `local-1`, mode 0600, written atomically so concurrent starts agree
 * on one key) and reused afterwards; `warn` is called every time, since such a key lives beside the
 * data it protects. With `NODE_ENV=production` (the container image) no key is ever generated.
 * @throws {Error} for an invalid key configuration, an unreadable key file, or no configured key in production.
 */
export async function loadKeyring(
  env: {
    SECRETS_ENCRYPTION_KEYS?: string | undefined;
    SECRETS_ACTIVE_KEY_ID?: string | undefined;
    DATA_DIR: string;
    MYSQL_URL?: string | undefined;
    NODE_ENV?: string | undefined;
  },
  warn: (message: string) => void,
): Promise<Keyring> {
  if (env.SECRETS_ENCRYPTION_KEYS) return parseKeyring(env.SECRETS_ENCRYPTION_KEYS, env.SECRETS_ACTIVE_KEY_ID);
  if (env.NODE_ENV === 'production') {
    throw new Error(
      'SECRETS_ENCRYPTION_KEYS is required in production (NODE_ENV=production): a key generated into DATA_DIR would differ per replica and be lost with the container. See docs/operations.md.',
    );
  }
  const file = join(env.DATA_DIR, LOCAL_KEY_FILE);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // Written whole to a temporary file, then linked into place: when several processes start at once,
  // exactly one key wins and nobody reads a half-written file.
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, `local-1:${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600 });
  let generated = true;
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    generated = false;
  } finally {
    await unlink(temp);
  }
  warn(
    `SECRETS_ENCRYPTION_KEYS is not set: system parameter values are encrypted with the key ${generated ? 'just generated into' : 'generated earlier in'} ${file}, which lives beside the data it protects. Configure SECRETS_ENCRYPTION_KEYS in production (docs/operations.md).`,
  );
  if (env.MYSQL_URL) {
    warn(
      'MYSQL_URL is set but SECRETS_ENCRYPTION_KEYS is not: every host running the secrets service generates its own key, and values written by one cannot be read by another.',
    );
  }
  return parseKeyring(await readFile(file, 'utf8'));
}
