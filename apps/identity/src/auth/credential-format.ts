/**
 * Credential format, recognisable by secret scanners (like GitHub's): a fixed prefix, 256 bits of
 * randomness as 64 hex characters, and a CRC-32 checksum (8 hex) of prefix + random part, so a
 * scanner or this service can reject a mistyped or made-up credential without a database lookup.
 *   user app token:     rbt_<64 hex><8 hex>
 *   service credential: rbs_<64 hex><8 hex>
 *   web session:        rbw_<64 hex><8 hex> (the settings UI's sign-in; sent by the gateway from its cookie)
 * Only the SHA-256 of a credential is stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const USER_TOKEN_PREFIX = 'rbt_';
export const SERVICE_CREDENTIAL_PREFIX = 'rbs_';
export const WEB_SESSION_PREFIX = 'rbw_';
const BODY = /^(rbt_|rbs_|rbw_)([0-9a-f]{64})([0-9a-f]{8})$/;

/** What a credential is, by its prefix. */
export type CredentialKind = 'user' | 'service' | 'session';

function checksum(prefix: string, random: string): string {
  return crc32(prefix + random)
    .toString(16)
    .padStart(8, '0');
}

/** A new credential with `prefix`: 32 random bytes from the CSPRNG plus its checksum. */
export function generateCredential(
  prefix: typeof USER_TOKEN_PREFIX | typeof SERVICE_CREDENTIAL_PREFIX | typeof WEB_SESSION_PREFIX,
): string {
  const random = randomBytes(32).toString('hex');
  return `${prefix}${random}${checksum(prefix, random)}`;
}

/** The kind of a well-formed credential with a valid checksum, or `null`. */
export function credentialKind(credential: string): CredentialKind | null {
  const m = BODY.exec(credential);
  if (!m?.[1] || !m[2] || m[3] !== checksum(m[1], m[2])) return null;
  if (m[1] === USER_TOKEN_PREFIX) return 'user';
  return m[1] === WEB_SESSION_PREFIX ? 'session' : 'service';
}

/** SHA-256 hex of a credential: what is stored and looked up. */
export function hashCredential(credential: string): string {
  return createHash('sha256').update(credential).digest('hex');
}

/** The first 12 characters (prefix + 8), shown in token lists to recognise a token. */
export const displayPrefix = (credential: string): string => credential.slice(0, 12);
