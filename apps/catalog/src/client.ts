/** What other services (the gateway) import from catalog: a typed client. */
import { createServiceClient } from '@runbook/rpc';
import type { CatalogRouter } from './router.js';

/**
 * A typed tRPC client for catalog at `baseUrl` (e.g. `http://127.0.0.1:4003`). `serviceCredential` is
 * sent when a call does not forward a user's credential (`{ context: { credential } }`).
 */
export const createCatalogClient = (baseUrl: string, serviceCredential?: string) =>
  createServiceClient<CatalogRouter>(baseUrl, serviceCredential);
/** The client's type (e.g. for the gateway's deps). */
export type CatalogClient = ReturnType<typeof createCatalogClient>;
