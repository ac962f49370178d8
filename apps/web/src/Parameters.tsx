/**
 * Settings → System Parameters: the list, the "Create a new System Parameter" modal, and the edit
 * panel (display name, value — secret values are never shown, only replaced — delete, where used,
 * version history). Without `integrations_admin` everything is read-only.
 */
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, errorMessage, formatTime } from './api';

const NAME_RULE = /^[a-z][a-z0-9_]*$/;
const SECRET_PLACEHOLDER = 'Secret — enter a new value to replace it';

/** Why `name` is not a valid system name, or null when it is. */
export function nameProblem(name: string): string | null {
  if (name === '') return 'A system name is required.';
  if (name.length > 64) return `At most 64 characters (this one has ${name.length}).`;
  if (!/^[a-z]/.test(name)) return 'Start with a lowercase letter (a–z).';
  if (!NAME_RULE.test(name)) return 'Use only lowercase letters, digits and underscores (_).';
  return null;
}

function CreateModal({ onClose, onCreated }: { onClose: () => void; onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [secret, setSecret] = useState(true);
  const [touched, setTouched] = useState(false);
  const problem = nameProblem(name);
  const create = useMutation({
    mutationFn: () =>
      api.systemParameters.create.mutate({
        data: { type: 'system_parameter', attributes: { name, value, secret, description: '' } },
      }),
    onSuccess: async (doc) => {
      await queryClient.invalidateQueries({ queryKey: ['parameters'] });
      onCreated(doc.data.id);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!problem) create.mutate();
  };
  return (
    <div className="backdrop">
      <form className="modal card" role="dialog" aria-modal="true" aria-labelledby="create-title" onSubmit={submit}>
        <div className="modal-head">
          <h2 id="create-title">Create a new System Parameter</h2>
          <button type="button" className="icon" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </div>
        <label>
          System name
          <input
            name="name"
            value={name}
            spellCheck={false}
            aria-invalid={touched && problem ? true : undefined}
            aria-describedby="name-help"
            onChange={(e) => {
              setName(e.target.value);
              setTouched(true);
            }}
          />
        </label>
        {touched && problem ? (
          <p id="name-help" className="error field-error" data-testid="name-error">
            {problem}
          </p>
        ) : (
          <p id="name-help" className="hint">
            Referenced as <code>{`{{system.${name || 'name'}}}`}</code>. Lowercase letters, digits and _; cannot be
            changed later.
          </p>
        )}
        <label>
          Value
          <textarea name="value" rows={3} value={value} spellCheck={false} onChange={(e) => setValue(e.target.value)} />
        </label>
        <label className="switch">
          <input
            type="checkbox"
            role="switch"
            aria-checked={secret}
            name="secret"
            checked={secret}
            onChange={(e) => setSecret(e.target.checked)}
          />
          <span>Secret (write-only: the value is never shown again)</span>
        </label>
        {create.error ? (
          <p className="error" role="alert">
            {errorMessage(create.error)}
          </p>
        ) : null}
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending || (touched && problem !== null)}>
            {create.isPending ? 'Creating…' : '+ Create'}
          </button>
        </div>
      </form>
    </div>
  );
}

function EditPanel({ id, canEdit, onClose }: { id: string; canEdit: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const parameter = useQuery({ queryKey: ['parameters', id], queryFn: () => api.systemParameters.get.query({ id }) });
  const usages = useQuery({
    queryKey: ['parameters', id, 'usages'],
    queryFn: () => api.systemParameterUsages.ofParameter.query({ id }),
  });
  const history = useQuery({
    queryKey: ['parameters', id, 'history'],
    queryFn: () => api.systemParameters.auditEventsOf.query({ id, 'page[size]': 20 }),
    enabled: canEdit,
  });
  const p = parameter.data?.data;
  const [draft, setDraft] = useState<{ version: number; display_name: string; value: string } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const current = p
    ? draft && draft.version === p.attributes.version
      ? draft
      : { version: p.attributes.version, display_name: p.attributes.display_name, value: p.attributes.value ?? '' }
    : null;
  const dirty =
    p !== undefined &&
    current !== null &&
    (current.display_name !== p.attributes.display_name ||
      (p.attributes.secret ? current.value !== '' : current.value !== (p.attributes.value ?? '')));

  const save = useMutation({
    mutationFn: () => {
      if (!p || !current) throw new Error('Nothing to save.');
      const attributes: { display_name?: string; value?: string } = {};
      if (current.display_name !== p.attributes.display_name) attributes.display_name = current.display_name;
      if (p.attributes.secret ? current.value !== '' : current.value !== (p.attributes.value ?? '')) {
        attributes.value = current.value;
      }
      return api.systemParameters.update.mutate({
        id,
        data: { type: 'system_parameter', attributes },
        meta: { expected_version: p.attributes.version },
      });
    },
    onSuccess: async () => {
      setDraft(null);
      await queryClient.invalidateQueries({ queryKey: ['parameters'] });
    },
  });
  const remove = useMutation({
    mutationFn: () => api.systemParameters.delete.mutate({ id }),
    onSuccess: async () => {
      onClose();
      // The panel's own queries would refetch a parameter that no longer exists: drop them.
      await queryClient.cancelQueries({ queryKey: ['parameters', id] });
      queryClient.removeQueries({ queryKey: ['parameters', id] });
      await queryClient.invalidateQueries({ queryKey: ['parameters'], exact: true });
    },
  });

  if (parameter.isPending) return <aside className="panel card">Loading…</aside>;
  if (parameter.error || !p || !current) {
    return (
      <aside className="panel card">
        <p className="error" role="alert">
          {errorMessage(parameter.error)}
        </p>
      </aside>
    );
  }
  const update = (change: Partial<typeof current>) => setDraft({ ...current, ...change });
  const u = usages.data?.data.attributes;
  return (
    <aside className="panel card" aria-label={`Parameter ${p.attributes.name}`} data-testid="edit-panel">
      <div className="panel-head">
        <div>
          <h2>{p.attributes.display_name}</h2>
          <code className="muted">{`{{system.${p.attributes.name}}}`}</code>
        </div>
        <div className="panel-tools">
          {canEdit ? (
            <button
              type="button"
              className="icon danger"
              aria-label="Delete parameter"
              title="Delete parameter"
              onClick={() => setConfirming(true)}
            >
              <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
                <path
                  fill="currentColor"
                  d="M9 3h6l1 2h4v2H4V5h4l1-2zm-3 6h12l-1 12H7L6 9zm4 2v8h2v-8h-2zm4 0v8h2v-8h-2z"
                />
              </svg>
            </button>
          ) : null}
          <button type="button" className="icon" aria-label="Close panel" onClick={onClose}>
            ×
          </button>
        </div>
      </div>
      {confirming ? (
        <div className="confirm" role="alertdialog" aria-label="Confirm deletion">
          <p>
            Delete <strong>{p.attributes.name}</strong>? Integrations that reference it will fail to resolve.
          </p>
          {remove.error ? <p className="error">{errorMessage(remove.error)}</p> : null}
          <div className="actions">
            <button type="button" onClick={() => setConfirming(false)} disabled={remove.isPending}>
              Cancel
            </button>
            <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
              {remove.isPending ? 'Deleting…' : 'Delete'}
            </button>
          </div>
        </div>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <label>
          Display name
          <input
            name="display_name"
            value={current.display_name}
            readOnly={!canEdit}
            onChange={(e) => update({ display_name: e.target.value })}
          />
        </label>
        <label>
          Value
          <textarea
            name="value"
            rows={3}
            spellCheck={false}
            autoComplete="off"
            value={current.value}
            readOnly={!canEdit}
            placeholder={p.attributes.secret ? SECRET_PLACEHOLDER : ''}
            onChange={(e) => update({ value: e.target.value })}
          />
        </label>
        <p className="hint">
          {p.attributes.secret ? 'Secret' : 'Not secret'} · version {p.attributes.version} · updated{' '}
          {formatTime(p.attributes.updated_at)}
          {p.attributes.updated_by ? ` by user ${p.attributes.updated_by}` : ''}
        </p>
        {save.error ? (
          <p className="error" role="alert">
            {errorMessage(save.error)}
          </p>
        ) : null}
        {save.isSuccess && !dirty ? <p className="ok">Saved.</p> : null}
        {canEdit ? (
          <div className="actions">
            <button type="button" onClick={() => setDraft(null)} disabled={!dirty || save.isPending}>
              Discard
            </button>
            <button type="submit" className="primary" disabled={!dirty || save.isPending}>
              {save.isPending ? 'Saving…' : 'Save'}
            </button>
          </div>
        ) : (
          <p className="hint">Read-only: editing needs the integrations_admin role.</p>
        )}
      </form>
      <section>
        <h3>Where used</h3>
        {usages.error ? <p className="error">{errorMessage(usages.error)}</p> : null}
        {u ? (
          u.integrations.length + u.tasks.length + u.custom_field_values.length === 0 ? (
            <p className="muted" data-testid="where-used">
              Not used yet.
            </p>
          ) : (
            <ul data-testid="where-used">
              {u.integrations.map((i) => (
                <li key={`i${i.id}`}>Integration “{i.name}”</li>
              ))}
              {u.tasks.map((t) => (
                <li key={`t${t.id}`}>
                  Task “{t.name}” (runbook {t.runbook_id}, via {t.via.join(', ')})
                </li>
              ))}
              {u.custom_field_values.map((c) => (
                <li key={`c${c.custom_field_id}-${c.subject_type}${c.subject_id}`}>
                  Custom field {c.custom_field_id} on {c.subject_type} {c.subject_id}
                </li>
              ))}
            </ul>
          )
        ) : null}
      </section>
      <section>
        <h3>Version history</h3>
        {!canEdit ? <p className="muted">The history needs the integrations_admin role.</p> : null}
        {history.error ? <p className="error">{errorMessage(history.error)}</p> : null}
        {history.data ? (
          <ol className="history" data-testid="history">
            {history.data.data.map((event) => (
              <li key={event.id}>
                <strong>{event.attributes.action}</strong>{' '}
                {event.attributes.new_version ? `→ v${event.attributes.new_version}` : ''} by {event.attributes.actor} ·{' '}
                {formatTime(event.attributes.created_at)}
              </li>
            ))}
          </ol>
        ) : null}
      </section>
    </aside>
  );
}

/** The System Parameters screen. */
export function Parameters({ canEdit }: { canEdit: boolean }) {
  const [creating, setCreating] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  // Every parameter, 100 at a time: each further page follows the keyset cursor of `links.next`.
  const list = useInfiniteQuery({
    queryKey: ['parameters'],
    queryFn: ({ pageParam }) =>
      api.systemParameters.list.query({ 'page[size]': 100, ...(pageParam ? { 'page[after]': pageParam } : {}) }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) =>
      last.links.next ? (new URL(last.links.next).searchParams.get('page[after]') ?? undefined) : undefined,
  });
  const rows = list.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <main className={selected ? 'split' : ''}>
      <section className="card list">
        <div className="list-head">
          <h1>System Parameters</h1>
          {canEdit ? (
            <button type="button" className="primary" onClick={() => setCreating(true)}>
              Add new parameter
            </button>
          ) : (
            <span className="badge" data-testid="read-only">
              Read-only
            </span>
          )}
        </div>
        {list.isPending ? <p>Loading…</p> : null}
        {list.error ? (
          <p className="error" role="alert">
            {errorMessage(list.error)}
          </p>
        ) : null}
        {list.data && rows.length === 0 ? <p className="muted">No parameters yet.</p> : null}
        {rows.length > 0 ? (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Display name</th>
                  <th>Secret</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((p) => (
                  <tr
                    key={p.id}
                    data-name={p.attributes.name}
                    aria-selected={selected === p.id}
                    tabIndex={0}
                    onClick={() => setSelected(p.id)}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter') setSelected(p.id);
                    }}
                  >
                    <td>
                      <code>{p.attributes.name}</code>
                    </td>
                    <td>{p.attributes.display_name}</td>
                    <td>{p.attributes.secret ? 'Secret' : '—'}</td>
                    <td>
                      {formatTime(p.attributes.updated_at)}
                      {p.attributes.updated_by ? (
                        <span className="muted"> by user {p.attributes.updated_by}</span>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {list.hasNextPage ? (
              <button type="button" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
                {list.isFetchingNextPage
                  ? 'Loading…'
                  : `Show more (${rows.length} of ${list.data?.pages[0]?.meta.page.total ?? '?'})`}
              </button>
            ) : null}
          </div>
        ) : null}
      </section>
      {selected ? <EditPanel key={selected} id={selected} canEdit={canEdit} onClose={() => setSelected(null)} /> : null}
      {creating ? (
        <CreateModal
          onClose={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            setSelected(id);
          }}
        />
      ) : null}
    </main>
  );
}
