/**
 * The OpenAPI 3.1 document, generated from the gateway router by trpc-to-openapi. Error responses
 * are rewritten to the documented error document (`{"errors": [...]}`) that the gateway really sends,
 * and each operation carries `x-required-roles`: the roles (see `GET /core/role_types`) of which its
 * caller needs one, and `x-required-role`: the first of them (for clients that read one role).
 */
import { errorDocumentSchema, type ProcedureMeta, requiredRoles } from '@runbook/contracts';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { CURRENT_API_VERSION } from './api-version.js';
import { addRequestBodyExamples } from './openapi-examples.js';
import { gatewayRouter } from './router.js';

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Malformed request (bad JSON, bad header, bad cursor).',
  '401': 'Missing, malformed, unknown, expired or revoked bearer token.',
  '403': 'Valid token, but the user lacks the required role.',
  '404': 'Not found, or not visible to the caller.',
  '409': 'Conflict (name taken, stale version).',
  '413': 'Request body or value too large.',
  '422': 'Validation failed; `source.pointer` names the field.',
  '429': 'Rate limited; see `Retry-After`.',
  '503': 'A backing service is unavailable; see `Retry-After`.',
};

/** Builds the document for clients reaching the gateway at `baseUrl`. */
export function buildOpenApiDocument(baseUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(gatewayRouter, {
    title: 'Runbook Platform API',
    description:
      'REST API of the Runbook Platform. Send `Authorization: Bearer <user app token>`; every call needs the `developer` role. ' +
      'Documents follow JSON:API conventions; errors are `{"errors": [{status, code, title, detail, source?}]}`. ' +
      'Lists take `page[number]`, `page[size]` (default 25, max 100) and `page[after]` (the cursor in `links.next`).',
    version: CURRENT_API_VERSION,
    baseUrl,
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A user app token (`rbt_…`).' } },
  });
  // The schema carries an id, so zod emits `{"$ref": "#/$defs/ErrorDocument", "$defs": …}`, a ref that
  // does not resolve inside an OpenAPI document: publish the definition itself.
  const errorJson = z.toJSONSchema(errorDocumentSchema) as { $defs?: Record<string, unknown> };
  const {
    $schema: _ignored,
    id: _id,
    ...errorSchema
  } = (errorJson.$defs?.ErrorDocument ?? errorJson) as Record<string, unknown>;
  doc.components ??= {};
  doc.components.schemas = { ...doc.components.schemas, ErrorDocument: errorSchema as never };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, { responses?: Record<string, unknown> }>)) {
      if (!op?.responses) continue;
      for (const status of Object.keys(op.responses)) {
        if (status === 'default' || Number(status) >= 400) delete op.responses[status];
      }
      for (const [status, description] of Object.entries(ERROR_STATUSES)) {
        op.responses[status] = {
          description,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDocument' } } },
        };
      }
    }
  }
  // Every operation states the roles of which its caller needs one (procedure meta `role`,
  // `developer` by default) in `x-required-roles`, and the first of them in `x-required-role`.
  const procedures = gatewayRouter._def.procedures as unknown as Record<string, { _def: { meta?: ProcedureMeta } }>;
  for (const { _def } of Object.values(procedures)) {
    const route = _def.meta?.openapi;
    if (!route) continue;
    const item = doc.paths?.[route.path] as Record<string, Record<string, unknown>> | undefined;
    const operation = item?.[route.method.toLowerCase()];
    if (!operation) continue;
    const roles = requiredRoles(_def.meta);
    operation['x-required-roles'] = roles;
    operation['x-required-role'] = roles[0];
  }
  // The success response is documented under the status the gateway really sends (meta `status`:
  // 201 for creates, 204 without a body for deletes), not trpc-to-openapi's fixed 200.
  for (const { _def } of Object.values(procedures)) {
    const route = _def.meta?.openapi;
    const status = _def.meta?.status ?? 200;
    if (!route || status === 200) continue;
    const item = doc.paths?.[route.path] as Record<string, { responses?: Record<string, unknown> }> | undefined;
    const operation = item?.[route.method.toLowerCase()];
    const { '200': success, ...errors } = operation?.responses ?? {};
    if (!operation || !success) continue;
    operation.responses = {
      [status]:
        status === 204
          ? { description: 'No content.' }
          : { description: 'Created.', content: (success as { content?: unknown }).content },
      ...errors,
    };
  }
  markOptionalBodies(doc);
  return addRequestBodyExamples(doc);
}

type BodySchema = { required?: string[]; $ref?: string };
type BodyOperation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: BodySchema }> } };

/**
 * trpc-to-openapi marks every JSON request body `required`. A body none of whose properties is
 * required (the run actions' optional `{"meta": …}`) may be left out — the gateway then takes the
 * input as `{}` — so its `requestBody.required` is set to false (OpenAPI 3.1 §4.8.13). A `$ref`
 * schema is read from `components.schemas`; one that does not resolve stays required.
 */
export function markOptionalBodies(doc: OpenAPIObject): void {
  const components = (doc.components?.schemas ?? {}) as Record<string, BodySchema>;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, BodyOperation>)) {
      let schema = op?.requestBody?.content?.['application/json']?.schema;
      if (schema?.$ref) schema = components[schema.$ref.replace('#/components/schemas/', '')];
      if (op?.requestBody && schema && !schema.required?.length) op.requestBody.required = false;
    }
  }
}
