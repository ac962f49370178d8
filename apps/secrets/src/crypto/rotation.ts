/**
 * Key rotation: re-encrypts every value that is not under the keyring's active key.
 *
 * Procedure without downtime (exact commands in docs/operations.md): (1) add the new key to
 * `SECRETS_ENCRYPTION_KEYS` on every replica, keeping the old one active, and roll them — now every
 * replica can decrypt both; (2) make the new key `SECRETS_ACTIVE_KEY_ID` and roll again — new writes
 * use it, and replicas not yet rolled can read them; (3) run `node dist/cli.js rotate-key` until it
 * reports `remaining: 0`; (4) after `SECRETS_CACHE_TTL_MS` (a cache shared through Redis is
 * invalidated by the command; in-process caches restart empty), remove the old key and roll.
 * Doing (1) and (2) in one roll would let a rolled replica write values the others cannot read.
 */
import type { SecretsDeps } from '../deps.js';
import { invalidateParameters } from '../system-parameters/parameter-cache.js';
import {
  countRowsNotUnderKey,
  findRowsNotUnderKey,
  replaceCiphertextIfUnchanged,
} from '../system-parameters/system-parameters.repository.js';
import { decryptValue, encryptValue } from './encryption.js';

/** Outcome of {@link reencryptAll}. */
export interface RotationResult {
  /** Rows re-encrypted under the active key. */
  reencrypted: number;
  /** Rows changed by a concurrent write while being re-encrypted (they were written under the active key, or are retried). */
  skipped: number;
  /** Rows still not under the active key when done (0 on success). */
  remaining: number;
}

/**
 * Re-encrypts, in batches of `batchSize` (default 100) by id, every row whose `key_id` is not the
 * active key. Each row is replaced only if its version and key are unchanged (optimistic check),
 * so a concurrent update is never overwritten; versions are kept since values do not change.
 * Cached entries of each batch are invalidated. Runs up to three passes so rows skipped because of
 * a concurrent write (by a replica still on the old key) are retried.
 * @throws {DecryptionError} when a row's key is not in the keyring (nothing of that row is changed).
 */
export async function reencryptAll(deps: SecretsDeps, options: { batchSize?: number } = {}): Promise<RotationResult> {
  const batchSize = options.batchSize ?? 100;
  const active = deps.keyring.activeKeyId;
  const result: RotationResult = { reencrypted: 0, skipped: 0, remaining: 0 };
  for (let pass = 0; pass < 3; pass++) {
    let afterId = 0;
    let skippedThisPass = 0;
    for (;;) {
      const rows = await findRowsNotUnderKey(deps.db, active, afterId, batchSize);
      if (rows.length === 0) break;
      const changed: string[] = [];
      for (const row of rows) {
        const plaintext = decryptValue(deps.keyring, row.name, { ciphertext: row.value_ciphertext, keyId: row.key_id });
        const sealed = encryptValue(deps.keyring, row.name, plaintext);
        const ok = await replaceCiphertextIfUnchanged(
          deps.db,
          { id: row.id, version: Number(row.version), oldKeyId: row.key_id },
          sealed,
        );
        if (ok) {
          result.reencrypted++;
          changed.push(row.name);
        } else skippedThisPass++;
      }
      await invalidateParameters(deps, changed);
      afterId = (rows[rows.length - 1] as { id: number }).id;
    }
    result.skipped += skippedThisPass;
    if (skippedThisPass === 0) break;
  }
  result.remaining = await countRowsNotUnderKey(deps.db, active);
  return result;
}
