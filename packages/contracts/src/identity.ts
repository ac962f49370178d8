/**
 * Identity DTOs beyond users and tokens (those live in `resources.ts`): user updates, role scoping,
 * teams and the audit trail (action logs). Flat DTOs travel between services; the gateway turns
 * them into JSON:API resources.
 */
import { z } from 'zod';
import { type Role, roleAssignmentSchema } from './auth.js';
import { idSchema, timestampSchema } from './jsonapi.js';

// ── roles ────────────────────────────────────────────────────────────────────────────────────

/**
 * Roles that may be assigned for one workspace (`workspace_id` set). The others
 * (`integrations_admin`, `global_user_admin`) govern instance-wide things and are global only.
 */
export const scopableRoles: readonly Role[] = ['developer', 'workspace_manager'];

// ── users ────────────────────────────────────────────────────────────────────────────────────

/**
 * Fields accepted by `PATCH /core/users/{id}`; omitted fields are kept. Names: the user themselves
 * or `global_user_admin`; `email` and `roles` (which replaces every assignment): `global_user_admin`.
 */
export const userUpdateAttributes = z
  .object({
    first_name: z.string().trim().min(1).max(100).optional().meta({ example: 'Ada' }),
    last_name: z.string().trim().min(1).max(100).optional().meta({ example: 'Lovelace' }),
    email: z.email().max(254).optional().meta({ example: 'ada@example.com' }),
    roles: z
      .array(roleAssignmentSchema)
      .max(50)
      .optional()
      .meta({ description: 'Replaces every role assignment of the user (global_user_admin only).' }),
  })
  .meta({ id: 'UserUpdateAttributes' });
/** TypeScript type of {@link userUpdateAttributes} after parsing. */
export type UserUpdateInput = z.infer<typeof userUpdateAttributes>;

// ── teams ────────────────────────────────────────────────────────────────────────────────────

/** Largest number of members a team may have. */
export const TEAM_MEMBERS_MAX = 1000;

/** Team attributes published by the team routes; timestamps ISO-8601 UTC. */
export const teamAttributes = z
  .object({
    name: z.string(),
    description: z.string(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'TeamAttributes' });
/** A team with the ids of its members (users), ascending. */
export const teamDto = teamAttributes.extend({ id: idSchema, member_ids: z.array(idSchema) });
/** TypeScript type of {@link teamDto}. */
export type TeamDto = z.infer<typeof teamDto>;

/** Fields accepted when creating a team. `name` is unique (case-sensitive). */
export const teamCreateAttributes = z
  .object({
    name: z.string().trim().min(1).max(100).meta({ example: 'Database on-call' }),
    description: z.string().max(5000).default('').meta({ example: 'Owns failovers of the payments database.' }),
  })
  .meta({ id: 'TeamCreateAttributes' });
/** Fields accepted when updating a team; omitted fields keep their value. */
export const teamUpdateAttributes = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    description: z.string().max(5000).optional(),
  })
  .meta({ id: 'TeamUpdateAttributes' });

// ── action logs (audit trail) ────────────────────────────────────────────────────────────────

/**
 * Security-relevant events recorded by identity:
 * - `user_created`, `user_updated` (`details.fields` names what changed), `user_archived`;
 * - `roles_changed` (`details.before`, `details.after`: role assignments);
 * - `user_app_token_created` (`details.label`, `details.expires_at`), `user_app_token_revoked`;
 * - `authentication_failures`: one credential failed repeatedly (`details.failures` within
 *   `details.window_seconds`, `details.reason`); the credential itself is never recorded.
 */
export const actionLogEventSchema = z.enum([
  'user_created',
  'user_updated',
  'user_archived',
  'roles_changed',
  'user_app_token_created',
  'user_app_token_revoked',
  'authentication_failures',
  'signed_in',
  'signed_out',
  'sign_in_failed',
  'password_changed',
]);
/** TypeScript type of {@link actionLogEventSchema}. */
export type ActionLogEvent = z.infer<typeof actionLogEventSchema>;

/** Audit record attributes (`GET /core/action_logs`, reference API): the event, what it concerns, the acting service when no user acted, free-form `details`. */
export const actionLogAttributes = z
  .object({
    event: actionLogEventSchema,
    subject_type: z.enum(['user', 'user_app_token']).nullable().meta({ description: 'What the event is about.' }),
    subject_id: z.string().nullable(),
    actor_service: z
      .string()
      .nullable()
      .meta({ description: 'The service that acted, when no user did (e.g. `identity` at first-run setup).' }),
    details: z.record(z.string(), z.unknown()),
    created_at: timestampSchema,
  })
  .meta({ id: 'ActionLogAttributes' });
/** An audit record. `user_id`: the user the event concerns; `actor_id`: the user who acted (null if none). */
export const actionLogDto = actionLogAttributes.extend({
  id: idSchema,
  user_id: idSchema.nullable(),
  actor_id: idSchema.nullable(),
});
/** TypeScript type of {@link actionLogDto}. */
export type ActionLogDto = z.infer<typeof actionLogDto>;
