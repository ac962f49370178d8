/**
 * Passwords for the web UI's sign-in: Argon2id (via `@node-rs/argon2`, its default algorithm, with
 * OWASP's minimum parameters: 19 MiB, 2 passes, 1 lane) stored as a PHC string; never logged.
 */
import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** Shortest password accepted (characters). */
export const PASSWORD_MIN_LENGTH = 12;
/** Longest password accepted (characters): bounds hashing cost. */
export const PASSWORD_MAX_LENGTH = 256;

const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** The Argon2id PHC string (`$argon2id$v=19$…`) of `password`. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** A throwaway hash, verified against when the user is unknown so both cases cost the same time. */
let dummyHash: Promise<string> | undefined;

/**
 * `true` when `password` matches `passwordHash`. With a null hash (unknown user, or no password set)
 * it still spends one verification and returns `false`, so timing does not reveal which emails exist.
 */
export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (passwordHash === null) {
    dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}

/** A random password for first-run setup: 24 characters of base64url (144 bits). */
export const generatePassword = (): string => randomBytes(18).toString('base64url');
