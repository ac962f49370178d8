/** Gateway environment, parsed once by `index.ts`. */
import { logLevel, port, serviceUrl } from '@runbook/config';
import { z } from 'zod';

export const gatewayEnvSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: port(3000),
  LOG_LEVEL: logLevel,
  /** Base URL clients use to reach the gateway (for `links`); defaults to `http://HOST:PORT`. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  IDENTITY_URL: serviceUrl,
  CATALOG_URL: serviceUrl,
  SECRETS_URL: serviceUrl,
  /** Largest request body in bytes (413 beyond). */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(16_777_216).default(1_048_576),
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;
