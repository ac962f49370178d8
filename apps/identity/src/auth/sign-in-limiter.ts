/**
 * Limits failed sign-ins per key (email + client IP) in fixed windows, in process memory (per
 * identity replica): after `max` failures within `windowMs` further attempts are refused until the
 * window ends, even with the right password. A success clears the key's failures.
 */

/** See {@link createSignInLimiter}. */
export interface SignInLimiter {
  /** Seconds until `key` may try again, or `null` when it may try now. */
  retryAfter(key: string, now: number): number | null;
  /** Counts one failure of `key`; returns the failures in the current window. */
  fail(key: string, now: number): number;
  /** Forgets `key`'s failures (after a successful sign-in). */
  reset(key: string): void;
}

/**
 * @param max failures allowed per window (default 5).
 * @param windowMs window length in ms, starting at the key's first failure (default one minute).
 * @param maxKeys keys remembered at most (oldest forgotten first).
 */
export function createSignInLimiter(
  options: { max?: number; windowMs?: number; maxKeys?: number } = {},
): SignInLimiter {
  const max = options.max ?? 5;
  const windowMs = options.windowMs ?? 60_000;
  const maxKeys = options.maxKeys ?? 10_000;
  const windows = new Map<string, { start: number; count: number }>();
  const current = (key: string, now: number) => {
    const w = windows.get(key);
    if (w && now - w.start >= windowMs) {
      windows.delete(key);
      return undefined;
    }
    return w;
  };
  return {
    retryAfter(key, now) {
      const w = current(key, now);
      if (!w || w.count < max) return null;
      return Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
    },
    fail(key, now) {
      let w = current(key, now);
      if (!w) {
        w = { start: now, count: 0 };
        windows.set(key, w);
        if (windows.size > maxKeys) {
          const oldest = windows.keys().next().value;
          if (oldest !== undefined) windows.delete(oldest);
        }
      }
      w.count++;
      return w.count;
    },
    reset(key) {
      windows.delete(key);
    },
  };
}
