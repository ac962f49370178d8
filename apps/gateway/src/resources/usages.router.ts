/**
 * REST `GET /core/system_parameters/{id}/usages` (where-used): the integrations, tasks and custom
 * field values that reference a system parameter. The parameter is looked up in secrets (by id or
 * name; 404 when unknown), its usages in catalog's where-used index.
 */
import { parameterUsagesSchema, singleDocument } from '@runbook/contracts';
import { z } from 'zod';
import { forwardingProcedure, router } from '../trpc.js';

const idOrName = z
  .string()
  .regex(/^([1-9][0-9]{0,15}|[a-z][a-z0-9_]{0,63})$/, 'must be a parameter id or system name')
  .meta({ description: 'Parameter id, or its system name.', example: 'payments_api_key' });

const usagesResource = z
  .object({
    id: z.string().meta({ description: 'The parameter id.' }),
    type: z.literal('system_parameter_usages'),
    attributes: parameterUsagesSchema,
  })
  .meta({ id: 'SystemParameterUsages' });

/** REST where-used of system parameters. */
export const usagesRouter = router({
  /**
   * List where a System Parameter is used: integrations whose templates reference it, tasks that run
   * those integrations or hold a custom field value referencing it, and those values (each list at
   * most 500; `truncated` says when cut). Role: developer. Errors: 404 unknown parameter.
   */
  ofParameter: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/system_parameters/{id}/usages',
        tags: ['system_parameters'],
        summary: 'List System Parameter Usages',
      },
    })
    .input(z.object({ id: idOrName }))
    .output(singleDocument(usagesResource))
    .query(async ({ ctx, input }) => {
      const parameter = await ctx.deps.secrets.systemParameters.get.query({ id_or_name: input.id }, ctx.forward);
      const usages = await ctx.deps.catalog.usages.ofParameter.query({ name: parameter.name }, ctx.forward);
      return { data: { id: parameter.id, type: 'system_parameter_usages' as const, attributes: usages } };
    }),
});
