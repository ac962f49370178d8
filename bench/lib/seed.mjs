/**
 * The benchmark data set, created through the public REST API of a running platform: one workspace,
 * 30 runbooks, 10 tasks in the first runbook, and 20 system parameters (every other one secret)
 * referenced by a 20-reference JSON template.
 */

/** The JSON body of `res`; throws with the status and body when it is not a 2xx. */
export async function json(res) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Seeds the data set through `base` (the gateway URL) with an admin `token`.
 * @returns {Promise<{workspaceId: string, runbookId: string, taskId: string, template: string}>}
 */
export async function seed(base, token) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = (path, body) =>
    fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then(json);
  const ws = await post('/core/workspaces', { data: { type: 'workspace', attributes: { name: 'Bench' } } });
  let runbookId;
  for (let i = 0; i < 30; i++) {
    const rb = await post('/core/runbooks', {
      data: {
        type: 'runbook',
        attributes: { name: `Runbook ${i}`, description: 'A runbook of the benchmark data set.' },
        relationships: { workspace: { data: { id: ws.data.id, type: 'workspace' } } },
      },
    });
    runbookId ??= rb.data.id;
  }
  let taskId;
  for (let i = 0; i < 10; i++) {
    const t = await post(`/core/runbooks/${runbookId}/tasks`, {
      data: { type: 'task', attributes: { name: `Task ${i}`, duration: 60 } },
    });
    taskId ??= t.data.id;
  }
  const refs = [];
  for (let i = 1; i <= 20; i++) {
    const name = `bench_param_${String(i).padStart(2, '0')}`;
    await post('/core/system_parameters', {
      data: {
        type: 'system_parameter',
        attributes: { name, value: `value-${i}-${'x'.repeat(24)}`, secret: i % 2 === 0 },
      },
    });
    refs.push(`{{system.${name}}}`);
  }
  const template = JSON.stringify(Object.fromEntries(refs.map((r, i) => [`field_${i}`, `prefix ${r} suffix`])));
  return { workspaceId: ws.data.id, runbookId, taskId, template };
}
