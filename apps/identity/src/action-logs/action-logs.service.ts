/**
 * The audit trail: security-relevant events (see `actionLogEventSchema` in @runbook/contracts),
 * written in the same transaction as the change they record. Details never hold a credential, a
 * token or a secret value.
 */
import type { ActionLogDto, ActionLogEvent, Page } from '@runbook/contracts';
import { isoOf, type PageInput } from '@runbook/db';
import type { Kysely } from 'kysely';
import type { Actor } from '../access.js';
import type { ActionLogRow, Database } from '../db/database.js';
import type { IdentityDeps } from '../deps.js';
import * as repo from './action-logs.repository.js';

/** One event to record. */
export interface ActionEntry {
  event: ActionLogEvent;
  actor: Actor;
  /** The user the event concerns. */
  user_id?: number | null;
  subject?: { type: 'user' | 'user_app_token'; id: number };
  details?: Record<string, unknown>;
}

/** Appends `entry` at time `now` (epoch ms); pass the transaction of the change it records as `db`. */
export function recordAction(db: Kysely<Database>, entry: ActionEntry, now: number): Promise<void> {
  return repo.insertActionLog(db, {
    event: entry.event,
    user_id: entry.user_id ?? null,
    actor_id: entry.actor.actor_id,
    actor_service: entry.actor.actor_service,
    subject_type: entry.subject?.type ?? null,
    subject_id: entry.subject?.id ?? null,
    details: JSON.stringify(entry.details ?? {}),
    created_at: now,
  });
}

const idOrNull = (v: number | string | null) => (v === null ? null : String(v));

function toActionLogDto(row: ActionLogRow): ActionLogDto {
  return {
    id: String(row.id),
    event: row.event as ActionLogEvent,
    user_id: idOrNull(row.user_id),
    actor_id: idOrNull(row.actor_id),
    actor_service: row.actor_service,
    subject_type: row.subject_type as ActionLogDto['subject_type'],
    subject_id: idOrNull(row.subject_id),
    details: JSON.parse(row.details) as Record<string, unknown>,
    created_at: isoOf(row.created_at),
  };
}

/**
 * A page of action logs, newest first.
 * @param filters `created_after` (inclusive) and `created_before` (exclusive) in epoch ms.
 * @throws {AppError} 400 `invalid_cursor`.
 */
export async function listActionLogs(
  deps: IdentityDeps,
  filters: repo.ActionLogFilters,
  page: PageInput,
): Promise<Page<ActionLogDto>> {
  const result = await repo.listActionLogs(deps.db, filters, page);
  return { ...result, items: result.items.map(toActionLogDto) };
}
