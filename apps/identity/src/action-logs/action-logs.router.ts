/** `actionLogs.*` procedures: thin — input → service → output. */
import {
  actionLogDto,
  actionLogEventSchema,
  idSchema,
  pageRequestSchema,
  pageSchema,
  timestampSchema,
} from '@runbook/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';
import * as service from './action-logs.service.js';

/** The audit trail (read-only; identity records events itself). */
export const actionLogsRouter = router({
  /**
   * The audit trail, newest first. Input `{user_id?, event?, created_after?, created_before?, page}`:
   * `user_id` matches events about or by that user; `created_after` is inclusive, `created_before`
   * exclusive (ISO-8601). Output: Page<ActionLogDto>. Role: global_user_admin. Errors: 400 `invalid_cursor`.
   */
  list: authedProcedure
    .meta({ role: 'global_user_admin' })
    .input(
      z.object({
        user_id: idSchema.optional(),
        event: actionLogEventSchema.optional(),
        created_after: timestampSchema.optional(),
        created_before: timestampSchema.optional(),
        page: pageRequestSchema,
      }),
    )
    .output(pageSchema(actionLogDto))
    .query(({ ctx, input }) =>
      service.listActionLogs(
        ctx.deps,
        {
          user_id: input.user_id === undefined ? undefined : Number(input.user_id),
          event: input.event,
          created_after: input.created_after === undefined ? undefined : Date.parse(input.created_after),
          created_before: input.created_before === undefined ? undefined : Date.parse(input.created_before),
        },
        input.page,
      ),
    ),
});
