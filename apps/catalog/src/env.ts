/** Catalog's environment, parsed once by `index.ts`. */
import { port, serviceEnv, serviceUrl } from '@runbook/config';
import { z } from 'zod';

export const catalogEnvSchema = z.object({
  ...serviceEnv,
  PORT: port(4003),
  /** Identity's base URL; every call's credential is authenticated there. */
  IDENTITY_URL: serviceUrl,
  /** Secrets' base URL (needed once integration tasks resolve `{{system.*}}`). */
  SECRETS_URL: serviceUrl.optional(),
  /** Catalog's own service credential, presented to identity and secrets. */
  SERVICE_CREDENTIAL: z.string().min(1),
});
export type CatalogEnv = z.infer<typeof catalogEnvSchema>;
