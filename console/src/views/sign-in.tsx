import { useState } from 'preact/hooks';
import { ApiError, request } from '../api.js';
import type { Role, Session } from '../session.js';
import { Field, Notice, errorText, useTitle } from '../ui.js';

interface Props {
  readonly expired: boolean;
  readonly onSignedIn: (session: Session) => void;
}

/** Sign-in with an API key (an account's view) or the admin token (the operator's view). */
export function SignIn({ expired, onSignedIn }: Props) {
  useTitle('Sign in');
  return (
    <main id="main" class="sign-in">
      <h1>smsgw console</h1>
      {expired && <Notice kind="info">You were signed out: the credential is no longer accepted.</Notice>}
      <div class="sign-in-forms">
        <CredentialForm
          role="account"
          title="Account"
          label="API key"
          intro="See your messages, send, and follow delivery reports."
          hint="The key printed when the account was created (npm start prints the first one)."
          onSignedIn={onSignedIn}
        />
        <CredentialForm
          role="operator"
          title="Operator"
          label="Admin token"
          intro="Manage accounts, connectors and routes, and watch the live dashboard."
          hint="The value of SMSGW_ADMIN_TOKEN the server was started with."
          onSignedIn={onSignedIn}
        />
      </div>
      <p class="hint">The credential is kept in this tab only and forgotten when the tab closes.</p>
    </main>
  );
}

interface FormProps {
  readonly role: Role;
  readonly title: string;
  readonly label: string;
  readonly intro: string;
  readonly hint: string;
  readonly onSignedIn: (session: Session) => void;
}

function CredentialForm({ role, title, label, intro, hint, onSignedIn }: FormProps) {
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const value = secret.trim();
    if (value === '') return setError(`Enter the ${label.toLowerCase()}.`);
    setBusy(true);
    setError(null);
    try {
      if (role === 'account') {
        const account = await request<{ name: string }>(value, 'GET', '/v1/account', undefined, {
          quietUnauthorized: true,
        });
        onSignedIn({ role, secret: value, label: account.name });
      } else {
        await request(value, 'GET', '/admin/v1/stats', undefined, { quietUnauthorized: true });
        onSignedIn({ role, secret: value, label: 'Operator' });
      }
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 401
          ? role === 'account'
            ? 'That API key was not accepted. Check it and try again.'
            : 'That admin token was not accepted. Check it, and that the server has SMSGW_ADMIN_TOKEN set.'
          : errorText(e),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={submit} aria-labelledby={`${role}-title`}>
      <h2 id={`${role}-title`}>{title}</h2>
      <p>{intro}</p>
      <Field label={label} hint={hint} error={error}>
        {({ id, describedBy, invalid }) => (
          <input
            id={id}
            type="password"
            autoComplete="off"
            spellcheck={false}
            value={secret}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Signing in…' : `Sign in with ${label.toLowerCase()}`}
      </button>
    </form>
  );
}
