/** `usages.*` procedures: where-used of system parameters. */
import { parameterUsagesSchema, systemNameSchema } from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';
import { findUsages } from './usages.service.js';

/** `usages.ofParameter`. */
export const usagesRouter = router({
  /**
   * Integrations, tasks and custom field values referencing system parameter `name` (each list at most
   * 500 entries; `truncated` says when cut). Input `{name}`. Output: ParameterUsages.
   */
  ofParameter: authedProcedure
    .input(z.object({ name: systemNameSchema }))
    .output(parameterUsagesSchema)
    .query(({ ctx, input }) => findUsages(ctx.deps, ctx.principal, input.name)),
});
