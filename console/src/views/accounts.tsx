import { useState } from 'preact/hooks';
import { request, withQuery } from '../api.js';
import { formatNumber, formatTime } from '../format.js';
import type { AdminAccount } from '../types.js';
import {
  DeliveryReportOptions,
  Field,
  Notice,
  Pager,
  TableRegion,
  errorText,
  useLoad,
  useTitle,
} from '../ui.js';
import { ShownOnce } from './shown-once.js';

const PAGE = 50;

/** Every account, and a form to create one; its first key is shown once. */
export function Accounts({ secret }: { secret: string }) {
  useTitle('Accounts');
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () =>
      request<{ accounts: AdminAccount[]; more_results: boolean }>(
        secret,
        'GET',
        withQuery('/admin/v1/accounts', { limit: PAGE, offset }),
      ),
    [secret, offset],
  );
  const [created, setCreated] = useState<(AdminAccount & { api_key: string }) | null>(null);

  return (
    <section aria-labelledby="accounts-title">
      <h1 id="accounts-title">Accounts</h1>
      {created && (
        <ShownOnce title={`Account ${created.name} was created`} secret={created.api_key} label="API key">
          <a href={`#/accounts/${created.accountID}`}>Open account {created.accountID}</a>
        </ShownOnce>
      )}
      <CreateAccount
        secret={secret}
        onCreated={(a) => {
          setCreated(a);
          void list.reload();
        }}
      />
      <h2>All accounts</h2>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && (
        <>
          <TableRegion label="Accounts">
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">accountID</th>
                  <th scope="col">Name</th>
                  <th scope="col">Credits</th>
                  <th scope="col">Senders</th>
                  <th scope="col">Time zone</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.accounts.map((a) => (
                  <tr key={a.accountID}>
                    <td>{a.accountID}</td>
                    <td>
                      <a href={`#/accounts/${a.accountID}`}>{a.name}</a>
                    </td>
                    <td>{a.credits === null ? 'Unlimited' : formatNumber(a.credits)}</td>
                    <td>{a.any_sender ? 'Any' : 'Validated only'}</td>
                    <td>{a.timezone}</td>
                    <td>{formatTime(a.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
          <Pager
            label="Account pages"
            offset={offset}
            limit={PAGE}
            more={list.data.more_results}
            shown={list.data.accounts.length}
            onOffset={setOffset}
          />
        </>
      )}
    </section>
  );
}

interface CreateProps {
  readonly secret: string;
  readonly onCreated: (account: AdminAccount & { api_key: string }) => void;
}

function CreateAccount({ secret, onCreated }: CreateProps) {
  const [name, setName] = useState('');
  const [credits, setCredits] = useState('');
  const [timezone, setTimezone] = useState('UTC');
  const [anySender, setAnySender] = useState(false);
  const [callbackUrl, setCallbackUrl] = useState('');
  const [report, setReport] = useState('');
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const account = await request<AdminAccount & { api_key: string }>(
        secret,
        'POST',
        '/admin/v1/accounts',
        {
          name: name.trim(),
          timezone: timezone.trim() || 'UTC',
          credits: credits.trim() === '' ? null : Number(credits),
          any_sender: anySender,
          ...(callbackUrl.trim() && { callback_url: callbackUrl.trim() }),
          ...(report && { delivery_report: report }),
        },
      );
      setName('');
      setCredits('');
      onCreated(account);
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <details class="card">
      <summary>Create an account</summary>
      <form class="grid-form" onSubmit={submit}>
        {error && <Notice kind="error">{error}</Notice>}
        <Field label="Name">
          {({ id }) => (
            <input id={id} required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Credits" hint="Empty: unlimited">
          {({ id, describedBy }) => (
            <input
              id={id}
              type="number"
              min={0}
              value={credits}
              aria-describedby={describedBy}
              onInput={(e) => setCredits(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Time zone" hint="IANA name, e.g. Europe/London">
          {({ id, describedBy }) => (
            <input
              id={id}
              value={timezone}
              aria-describedby={describedBy}
              onInput={(e) => setTimezone(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Callback URL" hint="Default URL for delivery reports">
          {({ id, describedBy }) => (
            <input
              id={id}
              type="url"
              value={callbackUrl}
              aria-describedby={describedBy}
              onInput={(e) => setCallbackUrl(e.currentTarget.value)}
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
            id="new-any-sender"
            type="checkbox"
            checked={anySender}
            onChange={(e) => setAnySender(e.currentTarget.checked)}
          />
          <label for="new-any-sender">Any sender allowed without validation</label>
        </div>
        <button type="submit" class="primary">
          Create account
        </button>
      </form>
    </details>
  );
}
