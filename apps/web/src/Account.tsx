/**
 * Settings → Account: the signed-in user changes their web sign-in password (current password,
 * new one twice). The gateway's `users.setPassword` checks the current password and the minimum
 * length (422 `current_password_incorrect` / `password_too_short`, shown as they come) and signs out
 * every other browser of the user; this one stays signed in.
 */
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, errorMessage } from './api';

/** Identity's minimum (apps/identity `PASSWORD_MIN_LENGTH`), checked here too for a quicker answer. */
const PASSWORD_MIN_LENGTH = 12;

/** A required password input with its label (and an optional hint under it). */
function PasswordField(props: {
  label: string;
  name: string;
  autoComplete: 'current-password' | 'new-password';
  value: string;
  onChange: (value: string) => void;
  minLength?: number;
  hint?: string;
  invalid?: boolean;
}) {
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        type="password"
        autoComplete={props.autoComplete}
        required
        minLength={props.minLength}
        maxLength={256}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.invalid}
      />
      {props.hint ? <span className="muted">{props.hint}</span> : null}
    </label>
  );
}

/** The Account screen of user `userId`. */
export function Account({ userId }: { userId: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeated, setRepeated] = useState('');
  const [changed, setChanged] = useState(false);
  const change = useMutation({
    mutationFn: () => api.users.setPassword.mutate({ id: userId, password: next, current_password: current }),
    onSuccess: () => {
      setChanged(true);
      setCurrent('');
      setNext('');
      setRepeated('');
    },
  });
  const mismatch = repeated !== '' && repeated !== next;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (mismatch || next.length < PASSWORD_MIN_LENGTH) return;
    setChanged(false);
    change.mutate();
  };
  return (
    <main>
      <section className="card">
        <h1>Password</h1>
        <p className="muted">
          Your password signs you in to these settings; API calls use user app tokens. Changing it signs out every other
          browser signed in as you.
        </p>
        <form className="stacked-form" onSubmit={submit} aria-label="Change password">
          <PasswordField
            label="Current password"
            name="current_password"
            autoComplete="current-password"
            value={current}
            onChange={setCurrent}
          />
          <PasswordField
            label="New password"
            name="new_password"
            autoComplete="new-password"
            value={next}
            onChange={setNext}
            minLength={PASSWORD_MIN_LENGTH}
            hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
          />
          <PasswordField
            label="Repeat the new password"
            name="repeat_password"
            autoComplete="new-password"
            value={repeated}
            onChange={setRepeated}
            invalid={mismatch}
          />
          {mismatch ? (
            <p className="error" role="alert">
              The new passwords do not match.
            </p>
          ) : null}
          {change.error ? (
            <p className="error" role="alert">
              {errorMessage(change.error)}
            </p>
          ) : null}
          {changed ? (
            <p className="ok" role="status">
              Password changed. Other browsers signed in as you have been signed out.
            </p>
          ) : null}
          <button
            type="submit"
            className="primary"
            disabled={change.isPending || mismatch || next.length < PASSWORD_MIN_LENGTH || current === ''}
          >
            {change.isPending ? 'Changing…' : 'Change password'}
          </button>
        </form>
      </section>
    </main>
  );
}
