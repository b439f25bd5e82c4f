import { useState } from 'preact/hooks';
import { request } from '../api.js';
import { formatNumber, formatTime } from '../format.js';
import type { AdminAccount } from '../types.js';
import { DeliveryReportOptions, Field, Notice, TableRegion, errorText, useLoad, useTitle } from '../ui.js';
import { ShownOnce } from './shown-once.js';

type Note = { kind: 'error' | 'success'; text: string } | null;

/** One account for the operator: settings, credit, keys, senders and inbound numbers. */
export function AccountAdmin({ secret, id }: { secret: string; id: string }) {
  useTitle(`Account ${id}`);
  const path = `/admin/v1/accounts/${encodeURIComponent(id)}`;
  const account = useLoad(() => request<AdminAccount>(secret, 'GET', path), [secret, id]);
  const [note, setNote] = useState<Note>(null);
  const [newKey, setNewKey] = useState<string | null>(null);

  const run = async (what: () => Promise<unknown>, done: string) => {
    setNote(null);
    try {
      await what();
      setNote({ kind: 'success', text: done });
      await account.reload();
    } catch (e) {
      setNote({ kind: 'error', text: errorText(e) });
    }
  };

  if (account.error && !account.data) {
    return (
      <section>
        <h1>Account {id}</h1>
        <Notice kind="error">{account.error}</Notice>
      </section>
    );
  }
  const a = account.data;
  if (!a) return <p>Loading…</p>;
  return (
    <section aria-labelledby="account-admin-title">
      <p>
        <a href="#/accounts">← Accounts</a>
      </p>
      <h1 id="account-admin-title">
        {a.name} <span class="muted">(accountID {a.accountID})</span>
      </h1>
      {note && <Notice kind={note.kind}>{note.text}</Notice>}
      {newKey && <ShownOnce title="A new API key was issued" label="API key" secret={newKey} />}

      <div class="two-columns">
        <Settings
          secret={secret}
          path={path}
          account={a}
          onSaved={(text) => void run(async () => {}, text)}
        />
        <Credit secret={secret} path={path} account={a} run={run} />
      </div>

      <h2>API keys</h2>
      <button
        type="button"
        class="primary"
        onClick={() =>
          void run(async () => {
            const key = await request<{ api_key: string }>(secret, 'POST', `${path}/keys`);
            setNewKey(key.api_key);
          }, 'Key created.')
        }
      >
        Create API key
      </button>
      <TableRegion label="API keys">
        <table class="list">
          <thead>
            <tr>
              <th scope="col">keyID</th>
              <th scope="col">Starts with</th>
              <th scope="col">Created</th>
              <th scope="col">Revoked</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(a.keys ?? []).map((k) => (
              <tr key={k.keyID}>
                <td>{k.keyID}</td>
                <td class="mono">{k.prefix}…</td>
                <td>{formatTime(k.created_at)}</td>
                <td>{formatTime(k.revoked_at)}</td>
                <td>
                  {k.revoked_at === null && (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Revoke key ${k.keyID}`}
                      onClick={() =>
                        confirm(`Revoke key ${k.prefix}…? Clients using it are refused at once.`) &&
                        void run(
                          () => request(secret, 'DELETE', `${path}/keys/${k.keyID}`),
                          `Key ${k.keyID} revoked.`,
                        )
                      }
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>

      <div class="two-columns">
        <div>
          <h2>Senders</h2>
          <ul class="chips">
            {(a.senders ?? []).map((s) => (
              <li key={s}>
                {s}{' '}
                <button
                  type="button"
                  aria-label={`Withdraw sender ${s}`}
                  onClick={() =>
                    void run(
                      () => request(secret, 'DELETE', `${path}/senders/${encodeURIComponent(s)}`),
                      `Sender ${s} withdrawn.`,
                    )
                  }
                >
                  Withdraw
                </button>
              </li>
            ))}
            {(a.senders ?? []).length === 0 && (
              <li class="muted">None{a.any_sender ? ' needed: any sender is allowed' : ''}</li>
            )}
          </ul>
          <AddOne
            label="Sender"
            hint="A phone number or a name of up to 11 letters and digits"
            button="Validate sender"
            onAdd={(sender) =>
              run(() => request(secret, 'POST', `${path}/senders`, { sender }), `Sender ${sender} validated.`)
            }
          />
        </div>
        <div>
          <h2>Inbound numbers</h2>
          <ul class="chips">
            {(a.numbers ?? []).map((n) => (
              <li key={n.numberID}>
                {n.msisdn}
                {n.ref ? ` (${n.ref})` : ''}{' '}
                <button
                  type="button"
                  aria-label={`Remove number ${n.msisdn}`}
                  onClick={() =>
                    void run(
                      () => request(secret, 'DELETE', `${path}/numbers/${encodeURIComponent(n.msisdn)}`),
                      `Number ${n.msisdn} removed.`,
                    )
                  }
                >
                  Remove
                </button>
              </li>
            ))}
            {(a.numbers ?? []).length === 0 && <li class="muted">None</li>}
          </ul>
          <AddOne
            label="Number"
            hint="E.164, e.g. +61491570999; messages to it come to this account"
            button="Route number"
            onAdd={(msisdn) =>
              run(() => request(secret, 'POST', `${path}/numbers`, { msisdn }), `Number ${msisdn} routed.`)
            }
          />
        </div>
      </div>
    </section>
  );
}

interface SettingsProps {
  readonly secret: string;
  readonly path: string;
  readonly account: AdminAccount;
  readonly onSaved: (text: string) => void;
}

function Settings({ secret, path, account, onSaved }: SettingsProps) {
  const [name, setName] = useState(account.name);
  const [timezone, setTimezone] = useState(account.timezone);
  const [anySender, setAnySender] = useState(account.any_sender);
  const [callbackUrl, setCallbackUrl] = useState(account.callback_url ?? '');
  const [inboundUrl, setInboundUrl] = useState(account.inbound_url ?? '');
  const [report, setReport] = useState(account.delivery_report ?? '');
  const [error, setError] = useState<string | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await request(secret, 'PATCH', path, {
        name: name.trim(),
        timezone: timezone.trim(),
        any_sender: anySender,
        callback_url: callbackUrl.trim() || null,
        inbound_url: inboundUrl.trim() || null,
        delivery_report: report || null,
      });
      onSaved('Settings saved.');
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card grid-form" onSubmit={save} aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      {error && <Notice kind="error">{error}</Notice>}
      <Field label="Name">
        {({ id }) => <input id={id} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Time zone">
        {({ id }) => <input id={id} value={timezone} onInput={(e) => setTimezone(e.currentTarget.value)} />}
      </Field>
      <Field label="Callback URL">
        {({ id }) => (
          <input
            id={id}
            type="url"
            value={callbackUrl}
            onInput={(e) => setCallbackUrl(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Inbound URL">
        {({ id }) => (
          <input
            id={id}
            type="url"
            value={inboundUrl}
            onInput={(e) => setInboundUrl(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Delivery report">
        {({ id }) => (
          <select id={id} value={report} onChange={(e) => setReport(e.currentTarget.value)}>
            <DeliveryReportOptions none="None" />
          </select>
        )}
      </Field>
      <div class="check">
        <input
          id="edit-any-sender"
          type="checkbox"
          checked={anySender}
          onChange={(e) => setAnySender(e.currentTarget.checked)}
        />
        <label for="edit-any-sender">Any sender allowed without validation</label>
      </div>
      <button type="submit" class="primary">
        Save settings
      </button>
    </form>
  );
}

interface CreditProps {
  readonly secret: string;
  readonly path: string;
  readonly account: AdminAccount;
  readonly run: (what: () => Promise<unknown>, done: string) => Promise<void>;
}

function Credit({ secret, path, account, run }: CreditProps) {
  const [add, setAdd] = useState('');
  const [setTo, setSetTo] = useState('');
  return (
    <div class="card">
      <h2>Credit</h2>
      <p class="tile-value" data-testid="credits">
        {account.credits === null ? 'Unlimited' : formatNumber(account.credits)}
      </p>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run(
            () => request(secret, 'PATCH', path, { add_credits: Number(add) }),
            `Added ${add} credits.`,
          ).then(() => setAdd(''));
        }}
      >
        <Field label="Credits to add" hint="Negative to deduct">
          {({ id, describedBy }) => (
            <input
              id={id}
              type="number"
              required
              value={add}
              aria-describedby={describedBy}
              onInput={(e) => setAdd(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={account.credits === null}>
          Add credits
        </button>
      </form>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const credits = setTo.trim() === '' ? null : Number(setTo);
          void run(() => request(secret, 'PATCH', path, { credits }), 'Balance set.').then(() =>
            setSetTo(''),
          );
        }}
      >
        <Field label="Set balance to" hint="Empty: unlimited">
          {({ id, describedBy }) => (
            <input
              id={id}
              type="number"
              min={0}
              value={setTo}
              aria-describedby={describedBy}
              onInput={(e) => setSetTo(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit">Set balance</button>
      </form>
      <button
        type="button"
        onClick={() =>
          confirm('Rotate the webhook secret? The old one keeps signing for 24 hours.') &&
          void run(
            () => request(secret, 'PATCH', path, { rotate_webhook_secret: true }),
            'Webhook secret rotated.',
          )
        }
      >
        Rotate webhook secret
      </button>
    </div>
  );
}

function AddOne(props: {
  label: string;
  hint: string;
  button: string;
  onAdd: (value: string) => Promise<void>;
}) {
  const [value, setValue] = useState('');
  return (
    <form
      class="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) void props.onAdd(value.trim()).then(() => setValue(''));
      }}
    >
      <Field label={props.label} hint={props.hint}>
        {({ id, describedBy }) => (
          <input
            id={id}
            value={value}
            aria-describedby={describedBy}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit">{props.button}</button>
    </form>
  );
}
