/** REST `/core/runbooks/{runbook_id}/tasks` (reference API: List Tasks, Get a Task, Create/Update/Delete a Task). */
import {
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  resourceSchema,
  singleDocument,
  strictBody,
  type TaskDto,
  taskAttributes,
  taskCreateAttributes,
  taskStageSchema,
  taskUpdateAttributes,
  toMany,
  toOne,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, many, one, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

export const taskResource = resourceSchema(
  'task',
  taskAttributes,
  z.object({ runbook: toOne('runbook'), predecessors: toMany('task') }),
).meta({ id: 'Task' });

const toResource = ({ id, runbook_id, predecessor_ids, ...attributes }: TaskDto) => ({
  id,
  type: 'task' as const,
  attributes,
  relationships: { runbook: one('runbook', runbook_id), predecessors: many('task', predecessor_ids) },
});

const predecessorsRef = z
  .object({ data: z.array(z.object({ id: idSchema, type: z.literal('task') })).max(1000) })
  .optional();
const taskRelationships = z.object({ predecessors: predecessorsRef }).optional();

export const tasksRouter = router({
  /** List Tasks of a runbook. Filter `stage`; pagination as List Runbooks. Role: developer. Errors: 404 runbook. */
  list: forwardingProcedure
    .meta({
      openapi: { method: 'GET', path: '/core/runbooks/{runbook_id}/tasks', tags: ['tasks'], summary: 'List Tasks' },
    })
    .input(z.object({ runbook_id: idSchema, stage: taskStageSchema.optional(), ...pageQueryShape }))
    .output(listDocumentSchema(taskResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.catalog.tasks.list.query(
        { runbook_id: input.runbook_id, ...(input.stage ? { stage: input.stage } : {}), page: pageRequestOf(input) },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        `/core/runbooks/${input.runbook_id}/tasks`,
        { stage: input.stage },
        input,
        page,
        toResource,
      );
    }),

  /** Get a Task. Errors: 404 (unknown runbook, or task not in it). Role: developer. */
  get: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/runbooks/{runbook_id}/tasks/{id}',
        tags: ['tasks'],
        summary: 'Get a Task',
      },
    })
    .input(z.object({ runbook_id: idSchema, id: idSchema }))
    .output(singleDocument(taskResource))
    .query(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.tasks.get.query(input, ctx.forward)),
    })),

  /**
   * Create a Task: `{"data": {"type": "task", "attributes": {name, description?, duration? (s),
   * auto_start?, auto_finish?}, "relationships": {"predecessors": {"data": [{"id", "type": "task"}]}}}}`.
   * Role: workspace_manager. Errors: 404 runbook; 422 invalid fields, `invalid_predecessor`, `predecessor_cycle`.
   */
  create: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      status: 201,
      openapi: { method: 'POST', path: '/core/runbooks/{runbook_id}/tasks', tags: ['tasks'], summary: 'Create a Task' },
    })
    .input(
      z.object({
        runbook_id: idSchema,
        data: strictBody(writeDocument('task', taskCreateAttributes, taskRelationships)),
      }),
    )
    .output(singleDocument(taskResource))
    .mutation(async ({ ctx, input }) => {
      const predecessor_ids = input.data.relationships?.predecessors?.data.map((p) => p.id) ?? [];
      const dto = await ctx.deps.catalog.tasks.create.mutate(
        { runbook_id: input.runbook_id, ...input.data.attributes, predecessor_ids },
        ctx.forward,
      );
      return { data: toResource(dto) };
    }),

  /** Update a Task's attributes and/or predecessors. Role: workspace_manager. Errors: 404, 422 (incl. `predecessor_cycle`). */
  update: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      openapi: {
        method: 'PATCH',
        path: '/core/runbooks/{runbook_id}/tasks/{id}',
        tags: ['tasks'],
        summary: 'Update a Task',
      },
    })
    .input(
      z.object({
        runbook_id: idSchema,
        id: idSchema,
        data: strictBody(writeDocument('task', taskUpdateAttributes, taskRelationships)),
      }),
    )
    .output(singleDocument(taskResource))
    .mutation(async ({ ctx, input }) => {
      const predecessors = input.data.relationships?.predecessors;
      const dto = await ctx.deps.catalog.tasks.update.mutate(
        {
          runbook_id: input.runbook_id,
          id: input.id,
          ...input.data.attributes,
          ...(predecessors ? { predecessor_ids: predecessors.data.map((p) => p.id) } : {}),
        },
        ctx.forward,
      );
      return { data: toResource(dto) };
    }),

  /** Delete a Task; 204, then Get a Task answers 404. Role: workspace_manager. */
  delete: forwardingProcedure
    .meta({
      role: 'workspace_manager',
      status: 204,
      openapi: {
        method: 'DELETE',
        path: '/core/runbooks/{runbook_id}/tasks/{id}',
        tags: ['tasks'],
        summary: 'Delete a Task',
      },
    })
    .input(z.object({ runbook_id: idSchema, id: idSchema }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.catalog.tasks.delete.mutate(input, ctx.forward);
    }),
});
