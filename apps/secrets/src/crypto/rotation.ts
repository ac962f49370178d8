/**
 * Key rotation: re-encrypts every value that is not under the keyring's active key.
 *
 * Procedure: add the new key to `SECRETS_ENCRYPTION_KEYS`, make it `SECRETS_ACTIVE_KEY_ID`, roll the
 * replicas (new writes use it), run `node dist/cli.js rotate-key`, and remove the old key only after
 * the command reports `remaining: 0` and `SECRETS_CACHE_TTL_MS` has passed (a replica may hold an old
 * ciphertext in the cache until then).
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
