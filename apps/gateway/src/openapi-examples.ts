/**
 * Whole-body request examples for the OpenAPI document. The `/docs` Try page pre-fills POST and PATCH
 * bodies from them, so each one must be a body the API accepts: the right `data.type`, every required
 * attribute, and no placeholder ids in optional relationships (Swagger UI's own generator fills every
 * optional property, which yields `"id": "string"`, a predecessor `"42"` and the like).
 *
 * Operations listed in {@link requestBodyExamples} get the hand-written example; any other operation
 * with a JSON body gets one generated from its schema with {@link sampleFromSchema} (required
 * properties plus optional ones that carry their own `example`). `openapi-examples.test.ts` checks
 * every example against the procedure's zod input.
 */
import type { OpenAPIObject } from 'trpc-to-openapi';

/** JSON values an example can hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Hand-written request bodies keyed by operationId (`<router>-<procedure>`). */
export const requestBodyExamples: Readonly<Record<string, JsonValue>> = {
  'workspaces-create': {
    data: {
      type: 'workspace',
      attributes: { name: 'Payments', key: 'PAY', description: 'Payments platform releases' },
    },
  },
  'runbooks-create': {
    data: {
      type: 'runbook',
      attributes: { name: 'Q4 database failover', description: 'Fail the primary over to the standby region.' },
      relationships: { workspace: { data: { id: '1', type: 'workspace' } } },
    },
  },
  'runbooks-update': {
    data: { type: 'runbook', attributes: { name: 'Q4 database failover (rehearsed)' } },
  },
  'tasks-create': {
    data: { type: 'task', attributes: { name: 'Stop writes on the primary', duration: 300 } },
  },
  'tasks-update': {
    data: { type: 'task', attributes: { name: 'Stop writes on the primary', duration: 600 } },
  },
  'systemParameters-create': {
    data: {
      type: 'system_parameter',
      attributes: {
        name: 'payments_base_url',
        value: 'https://payments.example.com',
        secret: false,
        description: 'Base URL of the payments API',
      },
    },
  },
  'systemParameters-update': {
    data: { type: 'system_parameter', attributes: { value: 'https://payments.example.com/v2' } },
  },
  'systemParameters-preview': {
    data: { template: '{{system.payments_base_url}}/charges', context: 'url' },
  },
  'users-create': {
    data: {
      type: 'user',
      attributes: {
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        roles: [{ role: 'developer', workspace_id: null }],
      },
    },
  },
  'userAppTokens-create': {
    data: { type: 'user_app_token', attributes: { label: 'CI pipeline' } },
  },
};

type Schema = {
  $ref?: string;
  example?: JsonValue;
  examples?: JsonValue[];
  const?: JsonValue;
  default?: JsonValue;
  enum?: JsonValue[];
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

/**
 * A small, valid-looking instance of a JSON schema: `example` / `const` / first enum value where the
 * schema gives one; objects get their required properties and the optional ones that carry an
 * `example`; arrays get `minItems` items. `$ref`s are resolved against `components.schemas`.
 * @param schema an OpenAPI 3.1 schema object
 * @param schemas the document's `components.schemas`
 */
export function sampleFromSchema(schema: Schema, schemas: Record<string, Schema> = {}, depth = 0): JsonValue {
  if (depth > 12) return null;
  if (schema.$ref) {
    const target = schemas[schema.$ref.replace('#/components/schemas/', '')];
    return target ? sampleFromSchema({ ...target, ...withoutRef(schema) }, schemas, depth + 1) : null;
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.[0] !== undefined) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.[0] !== undefined) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const first = variants.find((v) => v.type !== 'null') ?? variants[0];
    return first ? sampleFromSchema(first, schemas, depth + 1) : null;
  }
  if (schema.allOf) {
    const merged: Record<string, JsonValue> = {};
    for (const part of schema.allOf) {
      const value = sampleFromSchema(part, schemas, depth + 1);
      if (!isObject(value)) return value;
      Object.assign(merged, value);
    }
    return merged;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, JsonValue> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(name) || hasOwnExample(property, schemas)) {
          out[name] = sampleFromSchema(property, schemas, depth + 1);
        }
      }
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () =>
        sampleFromSchema(schema.items ?? {}, schemas, depth + 1),
      );
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum === undefined ? 1 : schema.exclusiveMinimum + 1);
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'string':
      return schema.format === 'date-time' ? new Date(Date.UTC(2030, 0, 1)).toISOString() : 'example';
    default:
      return null;
  }
}

function withoutRef(schema: Schema): Schema {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOwnExample(schema: Schema, schemas: Record<string, Schema>): boolean {
  const target = schema.$ref ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
  return target?.example !== undefined || target?.examples !== undefined;
}

type Operation = {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: Schema; example?: JsonValue }> };
};

/**
 * Sets `requestBody.content['application/json'].example` on every operation with a JSON body: the
 * entry of {@link requestBodyExamples} for its operationId, else one generated from its schema.
 * Mutates and returns `doc`.
 */
export function addRequestBodyExamples(doc: OpenAPIObject): OpenAPIObject {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      const media = op?.requestBody?.content?.['application/json'];
      if (!media?.schema) continue;
      media.example =
        (op.operationId ? requestBodyExamples[op.operationId] : undefined) ?? sampleFromSchema(media.schema, schemas);
    }
  }
  return doc;
}
