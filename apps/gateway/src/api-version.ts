/**
 * `Api-Version: YYYY-MM-DD` (as in the reference API): a request may name the version it was
 * written against; the response echoes the version served. Versions are dates; the newest version
 * not after the requested date is served, and a date before the first version is refused.
 */
export const API_VERSIONS = ['2026-11-21'] as const;
export const CURRENT_API_VERSION = API_VERSIONS[API_VERSIONS.length - 1] as string;

/** The version to serve for a request header value, or an error message for a bad one. */
export function negotiateApiVersion(header: string | undefined): { version: string } | { error: string } {
  if (header === undefined || header === '') return { version: CURRENT_API_VERSION };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(header) || Number.isNaN(Date.parse(header))) {
    return { error: 'Api-Version must be a date in the form YYYY-MM-DD.' };
  }
  const served = [...API_VERSIONS].reverse().find((v) => v <= header);
  if (!served) return { error: `Api-Version ${header} predates the first version of this API (${API_VERSIONS[0]}).` };
  return { version: served };
}
