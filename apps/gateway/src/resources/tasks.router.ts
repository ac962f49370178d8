/**
 * REST `/core/runbooks/{runbook_id}/tasks` (reference API: List Tasks, Get a Task, Create/Update/Delete
 * a Task, and the task actions `PATCH …/tasks/{id}/start|finish|skip`), plus an integration task's
 * executions `GET …/tasks/{id}/executions`.
 */
import {
  assigneeSchema,
  completionTypeSchema,
  customFieldValuesInput,
  type ExecutionDto,
  executionAttributes,
  idSchema,
  listDocument as listDocumentSchema,
  pageQueryShape,
  resourceSchema,
  singleDocument,
  sortSchema,
  strictBody,
  type TaskDetailDto,
  taskCreateAttributes,
  taskDetailAttributes,
  taskPlanningAttributes,
  taskSkipMeta,
  taskSortFields,
  taskStageSchema,
  taskUpdateAttributes,
  toMany,
  toOne,
  writeDocument,
} from '@runbook/contracts';
import { z } from 'zod';
import { listDocument, many, one, pageRequestOf } from '../jsonapi.js';
import { forwardingProcedure, router } from '../trpc.js';

const assigneesRelationship = z
  .object({ data: z.array(assigneeSchema) })
  .meta({ description: 'Users and teams the task is assigned to.' });

/** The `task` resource. */
export const taskResource = resourceSchema(
  'task',
  taskDetailAttributes,
  z.object({
    runbook: toOne('runbook'),
    predecessors: toMany('task'),
    successors: toMany('task'),
    assignees: assigneesRelationship,
    integration: toOne('integration').meta({
      description: 'The integration an integration task runs; null for manual tasks.',
    }),
  }),
).meta({ id: 'Task' });

const toResource = ({
  id,
  runbook_id,
  predecessor_ids,
  successor_ids,
  assignees,
  integration_id,
  ...attributes
}: TaskDetailDto) => ({
  id,
  type: 'task' as const,
  attributes,
  relationships: {
    runbook: one('runbook', runbook_id),
    predecessors: many('task', predecessor_ids),
    successors: many('task', successor_ids),
    assignees: { data: assignees.map((a) => ({ id: a.id, type: a.type })) },
    integration: one('integration', integration_id),
  },
});

/** An `execution` resource: one attempt to send an integration task's request. */
export const executionResource = resourceSchema(
  'execution',
  executionAttributes,
  z.object({ task: toOne('task'), integration: toOne('integration') }),
).meta({ id: 'Execution' });

const toExecutionResource = ({ id, task_id, runbook_id: _runbook, integration_id, ...attributes }: ExecutionDto) => ({
  id,
  type: 'execution' as const,
  attributes,
  relationships: { task: one('task', task_id), integration: one('integration', integration_id) },
});

const taskRelationships = z
  .object({
    predecessors: z.object({ data: z.array(z.object({ id: idSchema, type: z.literal('task') })).max(1000) }).optional(),
    assignees: z.object({ data: z.array(assigneeSchema).max(100) }).optional(),
    integration: z.object({ data: z.object({ id: idSchema, type: z.literal('integration') }).nullable() }).optional(),
  })
  .optional();

const taskCreateBody = taskCreateAttributes
  .extend({ ...taskPlanningAttributes.shape, custom_field_values: customFieldValuesInput.optional() })
  .meta({ id: 'TaskCreateDetailAttributes' });
const taskUpdateBody = taskUpdateAttributes
  .extend({ ...taskPlanningAttributes.shape, custom_field_values: customFieldValuesInput.optional() })
  .meta({ id: 'TaskUpdateDetailAttributes' });

/** The relationship fields of a write document as catalog input (omitted relationships are left out). */
function relationshipsInput(relationships: z.infer<typeof taskRelationships>) {
  return {
    ...(relationships?.predecessors ? { predecessor_ids: relationships.predecessors.data.map((p) => p.id) } : {}),
    ...(relationships?.assignees ? { assignees: relationships.assignees.data } : {}),
    ...(relationships?.integration ? { integration_id: relationships.integration.data?.id ?? null } : {}),
  };
}

const taskRef = z.object({ runbook_id: idSchema, id: idSchema });

/** A task action on `/core/runbooks/{runbook_id}/tasks/{id}/<action>`. */
const action = (name: 'start' | 'finish' | 'skip', summary: string) =>
  forwardingProcedure.meta({
    openapi: {
      method: 'PATCH',
      path: `/core/runbooks/{runbook_id}/tasks/{id}/${name}`,
      tags: ['tasks'],
      summary,
    },
  });

/** REST task procedures (nested under their runbook). */
export const tasksRouter = router({
  /**
   * List Tasks of a runbook. Filters `stage`, `completion_type`, `search_term` (case-insensitive part
   * of the name); `sort` by `id|name|created_at` (`-` for descending); pagination as List Runbooks.
   * Role: developer. Errors: 404 runbook.
   */
  list: forwardingProcedure
    .meta({
      openapi: { method: 'GET', path: '/core/runbooks/{runbook_id}/tasks', tags: ['tasks'], summary: 'List Tasks' },
    })
    .input(
      z.object({
        runbook_id: idSchema,
        stage: taskStageSchema.optional(),
        completion_type: completionTypeSchema.optional(),
        search_term: z.string().trim().min(1).max(200).optional(),
        sort: sortSchema(taskSortFields),
        ...pageQueryShape,
      }),
    )
    .output(listDocumentSchema(taskResource))
    .query(async ({ ctx, input }) => {
      const filters = {
        stage: input.stage,
        completion_type: input.completion_type,
        search_term: input.search_term,
        sort: input.sort,
      };
      const page = await ctx.deps.catalog.tasks.list.query(
        {
          runbook_id: input.runbook_id,
          ...(input.stage ? { stage: input.stage } : {}),
          ...(input.completion_type ? { completion_type: input.completion_type } : {}),
          ...(input.search_term ? { search_term: input.search_term } : {}),
          ...(input.sort ? { sort: input.sort as 'id' } : {}),
          page: pageRequestOf(input),
        },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        `/core/runbooks/${input.runbook_id}/tasks`,
        filters,
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
    .input(taskRef)
    .output(singleDocument(taskResource))
    .query(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.tasks.get.query(input, ctx.forward)),
    })),

  /**
   * Create a Task (runbook in planning): `{"data": {"type": "task", "attributes": {name, description?,
   * duration? (s), auto_start?, auto_finish?, start_planned?, end_planned?, custom_field_values?},
   * "relationships": {"predecessors": {"data": [{"id", "type": "task"}]}, "assignees": {"data":
   * [{"id", "type": "user" | "team"}]}, "integration": {"data": {"id", "type": "integration"}}}}}`.
   * Role: workspace_manager. Errors: 404 runbook; 422 invalid fields, `runbook_not_editable`,
   * `invalid_predecessor`, `unknown_integration`, `invalid_assignees` (users or teams that do not
   * exist, `meta.invalid`), custom field value codes.
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
        data: strictBody(writeDocument('task', taskCreateBody, taskRelationships)),
      }),
    )
    .output(singleDocument(taskResource))
    .mutation(async ({ ctx, input }) => {
      const dto = await ctx.deps.catalog.tasks.create.mutate(
        { runbook_id: input.runbook_id, ...input.data.attributes, ...relationshipsInput(input.data.relationships) },
        ctx.forward,
      );
      return { data: toResource(dto) };
    }),

  /**
   * Update a Task's attributes and/or relationships (predecessors only in planning; assignees and
   * integration any time; custom field values entry by entry, `value: null` removes). Role:
   * workspace_manager. Errors: 404, 422 (incl. `predecessor_cycle`, `runbook_not_editable`).
   */
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
        data: strictBody(writeDocument('task', taskUpdateBody, taskRelationships)),
      }),
    )
    .output(singleDocument(taskResource))
    .mutation(async ({ ctx, input }) => {
      const dto = await ctx.deps.catalog.tasks.update.mutate(
        {
          runbook_id: input.runbook_id,
          id: input.id,
          ...input.data.attributes,
          ...relationshipsInput(input.data.relationships),
        },
        ctx.forward,
      );
      return { data: toResource(dto) };
    }),

  /** Delete a Task (runbook in planning); 204, then Get a Task answers 404. Role: workspace_manager. */
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
    .input(taskRef)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.deps.catalog.tasks.delete.mutate(input, ctx.forward);
    }),

  /**
   * Start a Task (no body): `startable → in_progress`; an integration task's request is then sent.
   * On an integration task whose execution failed, retries it. Who: workspace_manager, or a user the
   * task is assigned to directly or through a team. Errors: 403; 404 (also for a runbook in a
   * workspace the user cannot see); 422 `runbook_not_active`, `predecessors_incomplete`,
   * `invalid_transition`; 503 `identity_unavailable` when team membership cannot be checked.
   */
  start: action('start', 'Start a Task')
    .input(taskRef)
    .output(singleDocument(taskResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.tasks.start.mutate(input, ctx.forward)),
    })),

  /**
   * Finish a Task (no body): `in_progress → complete` (`complete_normal`); successors whose
   * predecessors are all complete become startable. Who: as Start a Task. Errors: 403; 404; 422
   * `runbook_not_active`, `invalid_transition`; 503 `identity_unavailable`.
   */
  finish: action('finish', 'Finish a Task')
    .input(taskRef)
    .output(singleDocument(taskResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(await ctx.deps.catalog.tasks.finish.mutate(input, ctx.forward)),
    })),

  /**
   * Skip a Task: `{"meta": {"comment": "…"}}` (comment required) → `complete` (`complete_skipped`).
   * Who: as Start a Task. Errors: 403; 404; 422 `validation_failed` (no comment), `runbook_not_active`,
   * `invalid_transition`; 503 `identity_unavailable`.
   */
  skip: action('skip', 'Skip a Task')
    .input(taskRef.extend({ meta: strictBody(taskSkipMeta) }))
    .output(singleDocument(taskResource))
    .mutation(async ({ ctx, input }) => ({
      data: toResource(
        await ctx.deps.catalog.tasks.skip.mutate(
          { runbook_id: input.runbook_id, id: input.id, comment: input.meta.comment },
          ctx.forward,
        ),
      ),
    })),

  /**
   * List Executions of an integration task, oldest first: request line and headers, status, duration
   * (ms), response excerpt — every secret masked as `••••`. Pagination as List Runbooks. Errors: 404.
   */
  executions: forwardingProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/core/runbooks/{runbook_id}/tasks/{id}/executions',
        tags: ['tasks'],
        summary: 'List Task Executions',
      },
    })
    .input(taskRef.extend(pageQueryShape))
    .output(listDocumentSchema(executionResource))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.catalog.tasks.executions.query(
        { runbook_id: input.runbook_id, id: input.id, page: pageRequestOf(input) },
        ctx.forward,
      );
      return listDocument(
        ctx.deps.publicUrl,
        `/core/runbooks/${input.runbook_id}/tasks/${input.id}/executions`,
        {},
        input,
        page,
        toExecutionResource,
      );
    }),
});
