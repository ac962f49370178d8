/** Gateway dependencies: typed clients of the three services. The gateway has no database. */
import type { CatalogClient } from '@runbook/catalog/client';
import type { IdentityClient } from '@runbook/identity/client';
import type { Logger } from '@runbook/rpc';
import type { SecretsClient } from '@runbook/secrets/client';
import type { RateLimitSettings } from './rate-limit.js';

export interface GatewayDeps {
  identity: IdentityClient;
  catalog: CatalogClient;
  secrets: SecretsClient;
  /** Absolute base URL used in `links`, without a trailing slash. */
  publicUrl: string;
  logger: Logger;
  /** Rate limits (see `rate-limit.ts`); absent = no limiting (tests, in-process benchmarks). */
  rateLimit?: RateLimitSettings;
}
