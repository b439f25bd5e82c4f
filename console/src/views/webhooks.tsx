import { useState } from 'preact/hooks';
import { request, withQuery } from '../api.js';
import { formatTime } from '../format.js';
import type { Listing, WebhookDelivery } from '../types.js';
import { Field, Notice, Pager, StatusBadge, TableRegion, errorText, useLoad, useTitle } from '../ui.js';

const PAGE = 25;

/** The account's webhook deliveries, newest first, each with every attempt; failed ones can be replayed. */
export function Webhooks({ secret }: { secret: string }) {
  useTitle('Webhooks');
  const [kind, setKind] = useState('');
  const [state, setState] = useState('');
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () =>
      request<Listing<WebhookDelivery>>(
        secret,
        'GET',
        withQuery('/v1/webhooks', { kind, state, limit: PAGE, offset }),
      ),
    [secret, kind, state, offset],
  );
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhook deliveries</h1>
      <div class="filters">
        <Field label="Kind">
          {({ id }) => (
            <select id={id} value={kind} onChange={(e) => (setOffset(0), setKind(e.currentTarget.value))}>
              <option value="">Any</option>
              <option value="delivery_report">Delivery reports</option>
              <option value="inbound">Inbound messages</option>
            </select>
          )}
        </Field>
        <Field label="State">
          {({ id }) => (
            <select id={id} value={state} onChange={(e) => (setOffset(0), setState(e.currentTarget.value))}>
              <option value="">Any</option>
              <option value="pending">Pending</option>
              <option value="delivered">Delivered</option>
              <option value="failed">Failed (given up)</option>
            </select>
          )}
        </Field>
      </div>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && (
        <>
          {list.data.data.length === 0 ? (
            <p class="empty">No webhook deliveries.</p>
          ) : (
            <DeliveryTable secret={secret} deliveries={list.data.data} onChanged={() => void list.reload()} />
          )}
          <Pager
            label="Webhook pages"
            offset={offset}
            limit={PAGE}
            more={list.data.more_results}
            shown={list.data.data.length}
            onOffset={setOffset}
          />
        </>
      )}
    </section>
  );
}

interface TableProps {
  readonly secret: string;
  readonly deliveries: readonly WebhookDelivery[];
  readonly onChanged: () => void;
}

export function DeliveryTable({ secret, deliveries, onChanged }: TableProps) {
  const [note, setNote] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const replay = async (d: WebhookDelivery) => {
    setNote(null);
    try {
      await request(secret, 'POST', `/v1/webhooks/${d.deliveryID}/replay`);
      setNote({ kind: 'success', text: `Delivery ${d.deliveryID} is queued again.` });
      onChanged();
    } catch (e) {
      setNote({ kind: 'error', text: errorText(e) });
    }
  };
  return (
    <>
      {note && <Notice kind={note.kind}>{note.text}</Notice>}
      <TableRegion label="Webhook deliveries">
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Delivery</th>
              <th scope="col">Kind</th>
              <th scope="col">Message</th>
              <th scope="col">State</th>
              <th scope="col">URL</th>
              <th scope="col">Attempts</th>
              <th scope="col">Next attempt</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.deliveryID}>
                <td class="mono">{d.deliveryID}</td>
                <td>{d.kind === 'inbound' ? 'inbound' : 'delivery report'}</td>
                <td>
                  {d.kind === 'delivery_report' ? (
                    <a href={`#/messages/${d.messageID}`}>{d.messageID}</a>
                  ) : (
                    d.messageID
                  )}
                </td>
                <td>
                  <StatusBadge status={d.state} />
                </td>
                <td class="wrap">{d.url}</td>
                <td>
                  {d.attempts.length === 0 ? (
                    'none yet'
                  ) : (
                    <details>
                      <summary>
                        {d.attempts.length} attempt{d.attempts.length === 1 ? '' : 's'}
                      </summary>
                      <ol class="attempts">
                        {d.attempts.map((a, i) => (
                          <li key={i}>
                            {formatTime(a.attempted_at)}:{' '}
                            {a.status === null ? (a.error ?? 'no response') : `HTTP ${a.status}`} in{' '}
                            {a.duration_ms} ms
                            {a.response_excerpt ? <q>{a.response_excerpt}</q> : null}
                          </li>
                        ))}
                      </ol>
                    </details>
                  )}
                </td>
                <td>{formatTime(d.next_attempt_at)}</td>
                <td>
                  {d.state === 'failed' && (
                    <button
                      type="button"
                      onClick={() => void replay(d)}
                      aria-label={`Replay delivery ${d.deliveryID}`}
                    >
                      Replay
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
    </>
  );
}
