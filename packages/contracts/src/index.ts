/**
 * Contracts shared by every service and the gateway: the error model, roles and principals,
 * JSON:API document helpers, pagination, resource DTOs and the procedure meta type.
 */
export * from './auth.js';
export * from './errors.js';
export * from './identity.js';
export * from './jsonapi.js';
export * from './meta.js';
export * from './orchestration.js';
export * from './paging.js';
export * from './resources.js';
export * from './secrets.js';
