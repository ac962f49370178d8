/** `customFields.*` procedures: thin — input → service → output. Writes need `workspace_manager` (global). */
import {
  customFieldCreateAttributes,
  customFieldDto,
  customFieldUpdateAttributes,
  idSchema,
  pageRequestSchema,
  pageSchema,
} from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';
import * as service from './custom-fields.service.js';

/** `customFields.{list,get,create,update}`. */
export const customFieldsRouter = router({
  /** Definitions by id. Input `{page}`. Output: Page<CustomFieldDto>. Errors: 400 `invalid_cursor`. */
  list: authedProcedure
    .input(z.object({ page: pageRequestSchema }))
    .output(pageSchema(customFieldDto))
    .query(({ ctx, input }) => service.listCustomFields(ctx.deps, input.page)),

  /** One definition. Input `{id}`. Output: CustomFieldDto. Errors: 404. */
  get: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(customFieldDto)
    .query(({ ctx, input }) => service.getCustomField(ctx.deps, Number(input.id))),

  /**
   * Creates a definition. Input `{name, description?, field_type, applies_to? (task|runbook|all), options?}`.
   * Output: CustomFieldDto. Role: workspace_manager (global). Errors: 403; 409 `name_taken`; 422 option rules.
   */
  create: authedProcedure
    .meta({ role: 'workspace_manager' })
    .input(customFieldCreateAttributes)
    .output(customFieldDto)
    .mutation(({ ctx, input }) => service.createCustomField(ctx.deps, input)),

  /** Changes name, description or options. Input `{id, …}`. Output: CustomFieldDto. Role: workspace_manager. Errors: 403, 404, 409, 422. */
  update: authedProcedure
    .meta({ role: 'workspace_manager' })
    .input(customFieldUpdateAttributes.extend({ id: idSchema }))
    .output(customFieldDto)
    .mutation(({ ctx, input }) => service.updateCustomField(ctx.deps, Number(input.id), input)),
});
