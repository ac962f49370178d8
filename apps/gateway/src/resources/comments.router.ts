/** REST comments on runbooks (`/core/runbooks/{runbook_id}/comments`) and tasks (`…/tasks/{task_id}/comments`). */
import {
  type CommentDto,
  commentAttributes,
  commentCreateAttributes,
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  resourceSchema,
  singleDocument,
  strictBody,
  toOne,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, one, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

/** The `comment` resource. */
export const commentResource = resourceSchema(
  'comment',
  commentAttributes,
  z.object({ runbook: toOne('runbook'), task: toOne('task') }),
).meta({ id: 'Comment' });
const toResource = ({ id, runbook_id, task_id, ...attributes }: CommentDto) => ({
  id,
  type: 'comment' as const,
  attributes,
  relationships: { runbook: one('runbook', runbook_id), task: one('task', task_id) },
});

const body = z.object({ data: strictBody(writeDocument('comment', commentCreateAttributes)) });

/** REST comment procedures of runbooks and tasks. */
export const commentsRouter = router({
  /** List Runbook Comments (its tasks' included; filter `task_id`), oldest first. Role: developer. Errors: 404. */
  list: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/runbooks/{runbook_id}/comments',
        tags: ['comments'],
        summary: 'List Runbook Comments',
      },
    })
    .input(z.object({ runbook_id: idSchema, task_id: idSchema.optional(), ...pageQueryShape }))
    .output(listDocumentSchema(commentResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.catalog.comments.list.query(
        {
          runbook_id: input.runbook_id,
          ...(input.task_id ? { task_id: input.task_id } : {}),
          page: pageRequestOf(input),
        },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        `/core/runbooks/${input.runbook_id}/comments`,
        { task_id: input.task_id },
        input,
        page,
        toResource,
      );
    }),

  /** Comment on a Runbook: `{"data": {"type": "comment", "attributes": {"body"}}}`. Role: developer. Errors: 404, 422. */
  create: forwardingProcedure
    .meta({
      status: 201,
      openapi: {
        method: 'POST',
        path: '/core/runbooks/{runbook_id}/comments',
        tags: ['comments'],
        summary: 'Comment on a Runbook',
      },
    })
    .input(body.extend({ runbook_id: idSchema }))
    .output(singleDocument(commentResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.catalog.comments.create.mutate(
          { runbook_id: input.runbook_id, body: input.data.attributes.body },
          ctx.forward,
        ),
      ),
    })),

  /** List Task Comments, oldest first. Role: developer. Errors: 404. */
  listOfTask: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/runbooks/{runbook_id}/tasks/{task_id}/comments',
        tags: ['comments'],
        summary: 'List Task Comments',
      },
    })
    .input(z.object({ runbook_id: idSchema, task_id: idSchema, ...pageQueryShape }))
    .output(listDocumentSchema(commentResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.catalog.comments.list.query(
        { runbook_id: input.runbook_id, task_id: input.task_id, page: pageRequestOf(input) },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        `/core/runbooks/${input.runbook_id}/tasks/${input.task_id}/comments`,
        {},
        input,
        page,
        toResource,
      );
    }),

  /** Comment on a Task: `{"data": {"type": "comment", "attributes": {"body"}}}`. Role: developer. Errors: 404, 422. */
  createOnTask: forwardingProcedure
    .meta({
      status: 201,
      openapi: {
        method: 'POST',
        path: '/core/runbooks/{runbook_id}/tasks/{task_id}/comments',
        tags: ['comments'],
        summary: 'Comment on a Task',
      },
    })
    .input(body.extend({ runbook_id: idSchema, task_id: idSchema }))
    .output(singleDocument(commentResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.catalog.comments.create.mutate(
          { runbook_id: input.runbook_id, task_id: input.task_id, body: input.data.attributes.body },
          ctx.forward,
        ),
      ),
    })),
});
