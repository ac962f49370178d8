/** The settings shell: sign-in when there is no session, else the navigation and the current screen. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Account } from './Account';
import { api, errorMessage, errorStatus, signIn, signOut } from './api';
import { Parameters } from './Parameters';
import { Tokens } from './Tokens';

type Screen = 'parameters' | 'tokens' | 'account';

const screenOfPath = (path: string): Screen =>
  path.startsWith('/settings/tokens') ? 'tokens' : path.startsWith('/settings/account') ? 'account' : 'parameters';
const pathOfScreen: Record<Screen, string> = {
  parameters: '/settings/parameters',
  tokens: '/settings/tokens',
  account: '/settings/account',
};

function SignIn() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const mutation = useMutation({
    mutationFn: () => signIn(email, password),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['me'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate();
  };
  return (
    <main className="sign-in">
      <form className="card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Runbook Platform</h1>
        <label>
          Email
          <input
            name="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {mutation.error ? (
          <p className="error" role="alert">
            {errorMessage(mutation.error)}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={mutation.isPending}>
          {mutation.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

export function App() {
  const queryClient = useQueryClient();
  const [screen, setScreen] = useState<Screen>(() => screenOfPath(window.location.pathname));
  const me = useQuery({ queryKey: ['me'], queryFn: () => api.users.me.query({}) });
  const signOutMutation = useMutation({
    mutationFn: signOut,
    onSuccess: () => queryClient.resetQueries(),
  });

  useEffect(() => {
    const onPop = () => setScreen(screenOfPath(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const go = (next: Screen) => {
    if (next !== screen) window.history.pushState(null, '', pathOfScreen[next]);
    setScreen(next);
  };

  if (me.isPending) return <p className="loading">Loading…</p>;
  if (me.error) {
    if (errorStatus(me.error) === 401) return <SignIn />;
    return (
      <p className="error page-error" role="alert">
        {errorMessage(me.error)}
      </p>
    );
  }
  const user = me.data.data;
  const canEditParameters = user.attributes.roles.some(
    (r) => r.role === 'integrations_admin' && r.workspace_id === null,
  );

  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Runbook Platform · Settings</span>
        <span className="who" data-testid="signed-in-user">
          {user.attributes.name} ({user.attributes.email})
        </span>
        <button type="button" onClick={() => signOutMutation.mutate()} disabled={signOutMutation.isPending}>
          {signOutMutation.isPending ? 'Signing out…' : 'Sign out'}
        </button>
        {signOutMutation.error ? <span className="error">{errorMessage(signOutMutation.error)}</span> : null}
      </header>
      <nav className="tabs" aria-label="Settings">
        <a
          href={pathOfScreen.parameters}
          aria-current={screen === 'parameters' ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            go('parameters');
          }}
        >
          System Parameters
        </a>
        <a
          href={pathOfScreen.tokens}
          aria-current={screen === 'tokens' ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            go('tokens');
          }}
        >
          User App Tokens
        </a>
        <a
          href={pathOfScreen.account}
          aria-current={screen === 'account' ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            go('account');
          }}
        >
          Account
        </a>
      </nav>
      {screen === 'parameters' ? (
        <Parameters canEdit={canEditParameters} />
      ) : screen === 'tokens' ? (
        <Tokens userId={user.id} />
      ) : (
        <Account userId={user.id} />
      )}
    </div>
  );
}
