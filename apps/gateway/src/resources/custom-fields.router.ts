/**
 * REST `/core/custom_fields` (reference API: custom field definitions). Types `text`, `textarea`,
 * `select` (with `options`) and `temporary_credentials` (whose values may not reference system
 * parameters). Values are set on tasks and runbooks through their `custom_field_values` attribute.
 * Writes need `workspace_manager` (global).
 */
import {
  type CustomFieldDto,
  customFieldAttributes,
  customFieldCreateAttributes,
  customFieldUpdateAttributes,
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  resourceSchema,
  singleDocument,
  strictBody,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

/** The `custom_field` resource. */
export const customFieldResource = resourceSchema('custom_field', customFieldAttributes).meta({ id: 'CustomField' });
const toResource = ({ id, ...attributes }: CustomFieldDto) => ({ id, type: 'custom_field' as const, attributes });

/** REST `/core/custom_fields` procedures. */
export const customFieldsRouter = router({
  /** List Custom Fields by id. Pagination as List Runbooks. Role: developer. */
  list: forwardingProcedure
    .meta({
      openapi: { method: 'GET', path: '/core/custom_fields', tags: ['custom_fields'], summary: 'List Custom Fields' },
    })
    .input(z.object({ ...pageQueryShape }))
    .output(listDocumentSchema(customFieldResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.catalog.customFields.list.query({ page: pageRequestOf(input) }, ctx.forward);
      return listDocument(ctx.deps.publicUrl, '/core/custom_fields', {}, input, page, toResource);
    }),

  /** Get a Custom Field. Errors: 404. Role: developer. */
  get: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/custom_fields/{id}',
        tags: ['custom_fields'],
        summary: 'Get a Custom Field',
      },
    })
    .input(z.object({ id: idSchema }))
    .output(singleDocument(customFieldResource))
    .query(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.customFields.get.query(input, ctx.forward)),
    })),

  /**
   * Create a Custom Field: attributes `name`, `field_type`, `applies_to?` (task|runbook|all, default
   * all), `options?` (select only), `description?`. Role: workspace_manager. Errors: 409 `name_taken`,
   * 422 `options_required` / `options_not_allowed` / `duplicate_option`.
   */
  create: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      status: 201,
      openapi: {
        method: 'POST',
        path: '/core/custom_fields',
        tags: ['custom_fields'],
        summary: 'Create a Custom Field',
      },
    })
    .input(z.object({ data: strictBody(writeDocument('custom_field', customFieldCreateAttributes)) }))
    .output(singleDocument(customFieldResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.customFields.create.mutate(input.data.attributes, ctx.forward)),
    })),

  /** Update a Custom Field's name, description or options (its type is fixed). Role: workspace_manager. Errors: 404, 409, 422. */
  update: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      openapi: {
        method: 'PATCH',
        path: '/core/custom_fields/{id}',
        tags: ['custom_fields'],
        summary: 'Update a Custom Field',
      },
    })
    .input(z.object({ id: idSchema, data: strictBody(writeDocument('custom_field', customFieldUpdateAttributes)) }))
    .output(singleDocument(customFieldResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.catalog.customFields.update.mutate({ id: input.id, ...input.data.attributes }, ctx.forward),
      ),
    })),
});
