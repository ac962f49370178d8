/**
 * Settings → User App Tokens: the signed-in user's tokens (label, created, expires, last used),
 * create (label, optional expiry; the token is shown once with a copy button and a warning) and
 * revoke after confirmation.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, errorMessage, formatTime } from './api';

function TokenRow({
  userId,
  token,
}: {
  userId: string;
  token: {
    id: string;
    attributes: {
      label: string;
      token_prefix: string;
      created_at: string;
      expires_at: string | null;
      last_used_at: string | null;
      revoked_at: string | null;
    };
  };
}) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({
    mutationFn: () => api.userAppTokens.revoke.mutate({ user_id: userId, id: token.id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['tokens'] }),
  });
  const t = token.attributes;
  return (
    <tr data-label={t.label}>
      <td>
        {t.label}
        <div className="muted">
          <code>{t.token_prefix}…</code>
        </div>
      </td>
      <td>{formatTime(t.created_at)}</td>
      <td>{t.expires_at ? formatTime(t.expires_at) : 'Never'}</td>
      <td>{formatTime(t.last_used_at)}</td>
      <td>
        {t.revoked_at ? (
          <span className="badge">Revoked</span>
        ) : confirming ? (
          <span className="inline-confirm">
            Revoke “{t.label}”?{' '}
            <button type="button" className="danger" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
              {revoke.isPending ? 'Revoking…' : 'Confirm revoke'}
            </button>{' '}
            <button type="button" onClick={() => setConfirming(false)} disabled={revoke.isPending}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>
            Revoke
          </button>
        )}
        {revoke.error ? <p className="error">{errorMessage(revoke.error)}</p> : null}
      </td>
    </tr>
  );
}

/** The User App Tokens screen of user `userId`. */
export function Tokens({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const [label, setLabel] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const list = useQuery({
    queryKey: ['tokens', userId],
    queryFn: () => api.userAppTokens.list.query({ user_id: userId }),
  });
  const create = useMutation({
    mutationFn: () =>
      api.userAppTokens.create.mutate({
        user_id: userId,
        data: {
          type: 'user_app_token',
          attributes: {
            label,
            ...(expires ? { expires_at: new Date(`${expires}T23:59:59`).toISOString() } : {}),
          },
        },
      }),
    onSuccess: async (doc) => {
      setCreated(doc.meta.token);
      setCopied(false);
      setLabel('');
      setExpires('');
      await queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <main>
      <section className="card">
        <h1>User App Tokens</h1>
        <p className="muted">Tokens authenticate API calls as you: send them as “Authorization: Bearer …”.</p>
        <form className="inline-form" onSubmit={submit}>
          <label>
            Label
            <input name="label" required maxLength={100} value={label} onChange={(e) => setLabel(e.target.value)} />
          </label>
          <label>
            Expires (optional)
            <input name="expires" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} />
          </label>
          <button type="submit" className="primary" disabled={create.isPending || label.trim() === ''}>
            {create.isPending ? 'Creating…' : 'Create token'}
          </button>
        </form>
        {create.error ? (
          <p className="error" role="alert">
            {errorMessage(create.error)}
          </p>
        ) : null}
        {created ? (
          <div className="new-token" role="status">
            <p className="warning">
              Copy this token now: it is shown only once and cannot be retrieved later. Anyone holding it can act as
              you.
            </p>
            <div className="token-line">
              <code data-testid="new-token">{created}</code>
              <button type="button" onClick={copy}>
                {copied ? 'Copied' : 'Copy'}
              </button>
              <button type="button" onClick={() => setCreated(null)}>
                Done
              </button>
            </div>
          </div>
        ) : null}
      </section>
      <section className="card">
        {list.isPending ? <p>Loading…</p> : null}
        {list.error ? <p className="error">{errorMessage(list.error)}</p> : null}
        {list.data ? (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Label</th>
                  <th>Created</th>
                  <th>Expires</th>
                  <th>Last used</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((token) => (
                  <TokenRow key={token.id} userId={userId} token={token} />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </main>
  );
}
