/**
 * Where-used of a system parameter: the integrations whose templates reference it, the tasks that run
 * those integrations or hold a custom field value referencing it, and those custom field values —
 * read from the `parameter_references` index (written at save time), never by scanning templates.
 */
import type { ParameterUsages, Principal } from '@runbook/contracts';
import { canSeeWorkspace } from '../access.js';
import type { CatalogDeps } from '../deps.js';
import * as repo from './references.repository.js';

/** Most entries of each list. */
export const USAGES_LIMIT = 500;

/**
 * Everything in catalog referencing parameter `name` (each list cut at {@link USAGES_LIMIT}); tasks
 * and values in workspaces `principal` cannot see are left out.
 */
export async function findUsages(deps: CatalogDeps, principal: Principal, name: string): Promise<ParameterUsages> {
  const [integrations, values] = await Promise.all([
    repo.findReferencingIntegrations(deps.db, name, USAGES_LIMIT + 1),
    repo.findReferencingFieldValues(deps.db, name, USAGES_LIMIT + 1),
  ]);
  const integrationList = integrations.slice(0, USAGES_LIMIT);
  const visible = (row: { workspace_id: number }) => canSeeWorkspace(principal, row.workspace_id);
  const valueList = values.slice(0, USAGES_LIMIT).filter(visible);
  const viaIntegration = await repo.findTasksOfIntegrations(
    deps.db,
    integrationList.map((i) => i.id),
    USAGES_LIMIT + 1,
  );
  const tasks = new Map<number, ParameterUsages['tasks'][number]>();
  for (const t of viaIntegration.slice(0, USAGES_LIMIT).filter(visible)) {
    tasks.set(t.id, { id: String(t.id), runbook_id: String(t.runbook_id), name: t.name, via: ['integration'] });
  }
  for (const v of valueList) {
    if (v.task_id === null || v.runbook_id === null) continue;
    const known = tasks.get(v.task_id);
    if (known) {
      if (!known.via.includes('custom_field')) known.via.push('custom_field');
    } else if (tasks.size < USAGES_LIMIT) {
      tasks.set(v.task_id, {
        id: String(v.task_id),
        runbook_id: String(v.runbook_id),
        name: v.task_name ?? '',
        via: ['custom_field'],
      });
    }
  }
  return {
    name,
    integrations: integrationList.map((i) => ({ id: String(i.id), name: i.name })),
    tasks: [...tasks.values()].sort((a, b) => Number(a.id) - Number(b.id)),
    custom_field_values: valueList.map((v) => ({
      custom_field_id: String(v.custom_field_id),
      subject_type: v.task_id === null ? ('runbook' as const) : ('task' as const),
      subject_id: String(v.task_id ?? v.runbook_id),
      runbook_id: String(v.runbook_id),
    })),
    truncated:
      integrations.length > USAGES_LIMIT || values.length > USAGES_LIMIT || viaIntegration.length > USAGES_LIMIT,
  };
}
