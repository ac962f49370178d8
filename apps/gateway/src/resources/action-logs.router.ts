/** REST `/core/action_logs` (reference API: the audit trail), newest first. */
import {
  type ActionLogDto,
  actionLogAttributes,
  actionLogEventSchema,
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  resourceSchema,
  timestampSchema,
  toOne,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, one, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

/** An action log resource: the event, its details, the user it concerns and the acting user. */
export const actionLogResource = resourceSchema(
  'action_log',
  actionLogAttributes,
  z.object({
    user: toOne('user').meta({ description: 'The user the event concerns.' }),
    actor: toOne('user').meta({ description: 'The user who acted; null for a service or an unauthenticated caller.' }),
  }),
).meta({ id: 'ActionLog' });

const toResource = ({ id, user_id, actor_id, ...attributes }: ActionLogDto) => ({
  id,
  type: 'action_log' as const,
  attributes,
  relationships: { user: one('user', user_id), actor: one('user', actor_id) },
});

/** `/core/action_logs`. */
export const actionLogsRouter = router({
  /**
   * List Action Logs, newest first. Filters: `user_id` (events about or by that user), `event`,
   * `created_after` (inclusive), `created_before` (exclusive), ISO-8601. Pagination as List Runbooks.
   * Role: global_user_admin. Errors: 400 `invalid_cursor`, 422.
   */
  list: forwardingProcedure
    .meta({
      role: 'global_user_admin',
      openapi: { method: 'GET', path: '/core/action_logs', tags: ['action_logs'], summary: 'List Action Logs' },
    })
    .input(
      z.object({
        user_id: idSchema.optional(),
        event: actionLogEventSchema.optional(),
        created_after: timestampSchema.optional(),
        created_before: timestampSchema.optional(),
        ...pageQueryShape,
      }),
    )
    .output(listDocumentSchema(actionLogResource))
    .query(async ({ ctx, input }) => {
      const filters = {
        user_id: input.user_id,
        event: input.event,
        created_after: input.created_after,
        created_before: input.created_before,
      };
      const page = await ctx.deps.identity.actionLogs.list.query(
        {
          ...(input.user_id ? { user_id: input.user_id } : {}),
          ...(input.event ? { event: input.event } : {}),
          ...(input.created_after ? { created_after: input.created_after } : {}),
          ...(input.created_before ? { created_before: input.created_before } : {}),
          page: pageRequestOf(input),
        },
        ctx.forward,
      );
      return listDocument(ctx.deps.publicUrl, '/core/action_logs', filters, input, page, toResource);
    }),
});
