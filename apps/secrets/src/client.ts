/** What other services import from secrets: a typed client (`import { createSecretsClient } from '@runbook/secrets/client'`). */
import { createServiceClient } from '@runbook/rpc';
import type { SecretsRouter } from './router.js';

/**
 * A typed tRPC client for the secrets service at `baseUrl` (e.g. `http://127.0.0.1:4002`),
 * presenting `serviceCredential` unless a call forwards another credential
 * (`client.systemParameters.get.query(input, { context: { credential } })`).
 */
export const createSecretsClient = (baseUrl: string, serviceCredential: string) =>
  createServiceClient<SecretsRouter>(baseUrl, serviceCredential);
/** The client's type (e.g. for another service's deps). */
export type SecretsClient = ReturnType<typeof createSecretsClient>;
