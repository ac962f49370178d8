/**
 * Counts authentication failures per key (the SHA-256 of the presented credential) in fixed windows,
 * in process memory. Used to record repeated failures in the audit trail once per window instead
 * of once per request, so a client hammering with a revoked token costs one audit row a minute.
 */

/** See {@link createFailureCounter}. */
export interface FailureCounter {
  /**
   * Counts one failure of `key` at `now` (epoch ms).
   * @returns the failure count when it has just reached the threshold in the current window, else `null`.
   */
  hit(key: string, now: number): number | null;
}

/**
 * @param threshold failures within one window that make {@link FailureCounter.hit} report (once per window).
 * @param windowMs window length in milliseconds, starting at a key's first failure.
 * @param maxKeys keys remembered at most (oldest forgotten first), bounding memory under a flood of distinct credentials.
 */
export function createFailureCounter(options: {
  threshold: number;
  windowMs: number;
  maxKeys?: number;
}): FailureCounter {
  const maxKeys = options.maxKeys ?? 10_000;
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key, now) {
      let w = windows.get(key);
      if (!w || now - w.start >= options.windowMs) {
        windows.delete(key);
        w = { start: now, count: 0 };
        windows.set(key, w);
        if (windows.size > maxKeys) {
          const oldest = windows.keys().next().value;
          if (oldest !== undefined) windows.delete(oldest);
        }
      }
      w.count++;
      return w.count === options.threshold ? w.count : null;
    },
  };
}
