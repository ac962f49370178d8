/**
 * tRPC glue shared by every service: base procedures and error mapping ({@link createServiceTRPC}),
 * the HTTP server ({@link createServiceServer}) and typed service clients ({@link createServiceClient}).
 */

export type { Logger } from 'pino';
export { createServiceClient, type ServiceCallContext } from './client.js';
export { errorObjectsFor, retryAfterOf, toTRPCError, validationError } from './errors.js';
export {
  createLogger,
  createServiceServer,
  type ServiceServer,
  type ServiceServerOptions,
  stopOnSignals,
} from './server.js';
export { type BaseContext, createServiceTRPC, credentialFromHeader } from './trpc.js';
