/**
 * Credential format, recognisable by secret scanners (like GitHub's): a fixed prefix, 256 bits of
 * randomness as 64 hex characters, and a CRC-32 checksum (8 hex) of prefix + random part, so a
 * scanner or this service can reject a mistyped or made-up credential without a database lookup.
 *   user app token:     rbt_<64 hex><8 hex>
 *   service credential: rbs_<64 hex><8 hex>
 * Only the SHA-256 of a credential is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const USER_TOKEN_PREFIX = 'rbt_';
export const SERVICE_CREDENTIAL_PREFIX = 'rbs_';
const BODY = /^(rbt_|rbs_)([0-9a-f]{64})([0-9a-f]{8})$/;

function checksum(prefix: string, random: string): string {
  return crc32(prefix + random)
    .toString(16)
    .padStart(8, '0');
}

/** A new credential with `prefix`: 32 random bytes from the CSPRNG plus its checksum. */
export function generateCredential(prefix: typeof USER_TOKEN_PREFIX | typeof SERVICE_CREDENTIAL_PREFIX): string {
  const random = randomBytes(32).toString('hex');
  return `${prefix}${random}${checksum(prefix, random)}`;
}

/** The kind of a well-formed credential with a valid checksum, or `null`. */
export function credentialKind(credential: string): 'user' | 'service' | null {
  const m = BODY.exec(credential);
  if (!m?.[1] || !m[2] || m[3] !== checksum(m[1], m[2])) return null;
  return m[1] === USER_TOKEN_PREFIX ? 'user' : 'service';
}

/** SHA-256 hex of a credential: what is stored and looked up. */
export function hashCredential(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}

/** The first 12 characters (prefix + 8), shown in token lists to recognise a token. */
export const displayPrefix = (credential: string): string => credential.slice(0, 12);
