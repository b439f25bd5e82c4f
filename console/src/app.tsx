import { useEffect, useState } from 'preact/hooks';
import { whenUnauthorized } from './api.js';
import { navigate, useRoute } from './route.js';
import { clearSession, loadSession, saveSession, type Session } from './session.js';
import { AccountHome } from './views/account-home.js';
import { AccountAdmin } from './views/account-admin.js';
import { Accounts } from './views/accounts.js';
import { Connectors } from './views/connectors.js';
import { Dashboard } from './views/dashboard.js';
import { Inbound } from './views/inbound.js';
import { MessagePage } from './views/message.js';
import { Messages } from './views/messages.js';
import { Send } from './views/send.js';
import { SignIn } from './views/sign-in.js';
import { Webhooks } from './views/webhooks.js';

const ACCOUNT_NAV = [
  ['messages', 'Messages'],
  ['send', 'Send'],
  ['inbound', 'Inbound'],
  ['webhooks', 'Webhooks'],
  ['account', 'Account'],
] as const;

const OPERATOR_NAV = [
  ['dashboard', 'Dashboard'],
  ['accounts', 'Accounts'],
  ['connectors', 'Connectors'],
] as const;

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [expired, setExpired] = useState(false);
  const route = useRoute();

  const signOut = (why: 'asked' | 'expired') => {
    clearSession();
    setSession(null);
    setExpired(why === 'expired');
    navigate('');
  };
  useEffect(() => whenUnauthorized(() => signOut('expired')), []);

  if (!session) {
    return (
      <SignIn
        expired={expired}
        onSignedIn={(s) => {
          saveSession(s);
          setSession(s);
          setExpired(false);
          navigate(s.role === 'account' ? 'messages' : 'dashboard');
        }}
      />
    );
  }

  const nav = session.role === 'account' ? ACCOUNT_NAV : OPERATOR_NAV;
  const [first = nav[0][0], second] = route.segments;
  const section = nav.some(([path]) => path === first) ? first : nav[0][0];
  return (
    <>
      <a
        class="skip-link"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <span aria-hidden="true" class="brand-mark" />
          smsgw
        </div>
        <nav aria-label="Sections" class="sections">
          <ul>
            {nav.map(([path, label]) => (
              <li key={path}>
                <a href={`#/${path}`} aria-current={section === path ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {session.role === 'account' ? 'Account' : 'Operator'}
            {session.label && session.role === 'account' ? `: ${session.label}` : ''}
          </span>
          <button type="button" onClick={() => signOut('asked')}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {session.role === 'account' ? (
          <AccountView section={section} id={second} secret={session.secret} />
        ) : (
          <OperatorView section={section} id={second} secret={session.secret} />
        )}
      </main>
    </>
  );
}

interface ViewProps {
  readonly section: string;
  readonly id: string | undefined;
  readonly secret: string;
}

function AccountView({ section, id, secret }: ViewProps) {
  switch (section) {
    case 'send':
      return <Send secret={secret} />;
    case 'inbound':
      return <Inbound secret={secret} />;
    case 'webhooks':
      return <Webhooks secret={secret} />;
    case 'account':
      return <AccountHome secret={secret} />;
    default:
      return id ? <MessagePage secret={secret} id={id} /> : <Messages secret={secret} />;
  }
}

function OperatorView({ section, id, secret }: ViewProps) {
  switch (section) {
    case 'accounts':
      return id ? <AccountAdmin secret={secret} id={id} /> : <Accounts secret={secret} />;
    case 'connectors':
      return <Connectors secret={secret} />;
    default:
      return <Dashboard secret={secret} />;
  }
}
