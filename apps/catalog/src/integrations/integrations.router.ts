/** `integrations.*` procedures: thin — input → service → output. Writes need `integrations_admin`. */
import {
  idSchema,
  integrationCreateAttributes,
  integrationDto,
  integrationUpdateAttributes,
  pageRequestSchema,
  pageSchema,
} from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';
import * as service from './integrations.service.js';

/** `integrations.{list,get,create,update,delete}`. */
export const integrationsRouter = router({
  /** Integrations by id. Input `{page}`. Output: Page<IntegrationDto>. Errors: 400 `invalid_cursor`. */
  list: authedProcedure
    .input(z.object({ page: pageRequestSchema }))
    .output(pageSchema(integrationDto))
    .query(({ ctx, input }) => service.listIntegrations(ctx.deps, input.page)),

  /** One integration. Input `{id}`. Output: IntegrationDto. Errors: 404. */
  get: authedProcedure
    .input(z.object({ id: idSchema }))
    .output(integrationDto)
    .query(({ ctx, input }) => service.getIntegration(ctx.deps, Number(input.id))),

  /**
   * Creates an integration. Input: IntegrationCreateAttributes (`name`, `method`, `url`, `headers`,
   * `body`, `timeout_ms`, `success_statuses`). Templates are validated by secrets.
   * Output: IntegrationDto. Role: integrations_admin. Errors: 403; 409 `name_taken`; 422
   * `unknown_system_parameters` (`meta.missing`), `invalid_template`, `invalid_header_value`,
   * `invalid_url`, `reserved_header`, `duplicate_header`; 503 `secrets_unavailable`.
   */
  create: authedProcedure
    .meta({ role: 'integrations_admin' })
    .input(integrationCreateAttributes)
    .output(integrationDto)
    .mutation(({ ctx, input }) => service.createIntegration(ctx.deps, input)),

  /** Changes the given fields (templates re-validated). Input `{id, …}`. Output: IntegrationDto. Role: integrations_admin. Errors: as create, 404. */
  update: authedProcedure
    .meta({ role: 'integrations_admin' })
    .input(integrationUpdateAttributes.extend({ id: idSchema }))
    .output(integrationDto)
    .mutation(({ ctx, input }) => service.updateIntegration(ctx.deps, Number(input.id), input)),

  /** Deletes an integration. Input `{id}`. Role: integrations_admin. Errors: 403, 404, 409 `integration_in_use`. */
  delete: authedProcedure
    .meta({ role: 'integrations_admin' })
    .input(z.object({ id: idSchema }))
    .output(z.void())
    .mutation(({ ctx, input }) => service.deleteIntegration(ctx.deps, Number(input.id))),
});
