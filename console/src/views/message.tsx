import { useState } from 'preact/hooks';
import { request, withQuery } from '../api.js';
import { formatNumber, formatTime } from '../format.js';
import {
  STATUSES,
  type Listing,
  type OutboundMessage,
  type Recipient,
  type WebhookDelivery,
} from '../types.js';
import {
  Field,
  LiveNote,
  Notice,
  Pager,
  StatusBadge,
  TableRegion,
  errorText,
  useInterval,
  useLoad,
  useTitle,
} from '../ui.js';
import { DeliveryTable } from './webhooks.js';

const PAGE = 50;

/** One message: its fields and counts, every recipient, its delivery reports; pause, release, cancel. */
export function MessagePage({ secret, id }: { secret: string; id: string }) {
  useTitle(`Message ${id}`);
  const [refreshedAt, setRefreshedAt] = useState<number | null>(null);
  const message = useLoad(async () => {
    const m = await request<OutboundMessage>(
      secret,
      'GET',
      `/v1/sms/message/${encodeURIComponent(id)}/meta,status`,
    );
    setRefreshedAt(Date.now());
    return m;
  }, [secret, id]);
  const [statusFilter, setStatusFilter] = useState('');
  const [offset, setOffset] = useState(0);
  const recipients = useLoad(
    () =>
      request<Listing<Recipient>>(
        secret,
        'GET',
        withQuery('/v1/sms/recipients', { messageID: id, status: statusFilter, limit: PAGE, offset }),
      ),
    [secret, id, statusFilter, offset],
  );
  const deliveries = useLoad(
    () =>
      request<Listing<WebhookDelivery>>(
        secret,
        'GET',
        withQuery('/v1/webhooks', { messageID: id, kind: 'delivery_report', limit: 100 }),
      ),
    [secret, id],
  );
  const [action, setAction] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  const m = message.data;
  const open = m !== null && !m.complete_at;
  // Follows the message while it is on its way; a completed one no longer changes.
  useInterval(
    () => {
      void message.reload();
      void recipients.reload();
      void deliveries.reload();
    },
    1500,
    open,
  );

  const act = async (what: 'pause' | 'release' | 'cancel') => {
    if (what === 'cancel' && !confirm('Cancel every recipient not yet sent? This cannot be undone.')) return;
    setAction(null);
    try {
      if (what === 'cancel') await request(secret, 'DELETE', `/v1/sms/message/${id}`);
      else await request(secret, 'PATCH', `/v1/sms/message/${id}`, { paused: what === 'pause' });
      setAction({
        kind: 'success',
        text:
          what === 'cancel' ? 'Cancelled.' : what === 'pause' ? 'Paused.' : 'Released: it is sent when due.',
      });
      await Promise.all([message.reload(), recipients.reload()]);
    } catch (e) {
      setAction({ kind: 'error', text: errorText(e) });
    }
  };

  if (message.error && !m) {
    return (
      <section>
        <h1>Message {id}</h1>
        <Notice kind="error">{message.error}</Notice>
        <a href="#/messages">Back to messages</a>
      </section>
    );
  }
  if (!m) return <p>Loading…</p>;
  const counts = m.status ?? {};
  const waiting = (counts.pending ?? 0) > 0;
  const unsent = waiting || (counts.submitted ?? 0) > 0;

  return (
    <section aria-labelledby="message-title">
      <p>
        <a href="#/messages">← Messages</a>
      </p>
      <div class="title-row">
        <h1 id="message-title">
          Message <span class="mono">{m.messageID}</span>
        </h1>
        <div class="actions">
          {waiting && !m.paused && (
            <button type="button" onClick={() => void act('pause')}>
              Pause
            </button>
          )}
          {m.paused && (
            <button type="button" class="primary" onClick={() => void act('release')}>
              Release
            </button>
          )}
          {unsent && (
            <button type="button" class="danger" onClick={() => void act('cancel')}>
              Cancel message
            </button>
          )}
        </div>
      </div>
      {action && <Notice kind={action.kind}>{action.text}</Notice>}
      <LiveNote at={refreshedAt} />

      <div class="status-summary" aria-label="Recipients by status">
        {STATUSES.filter((s) => (counts[s] ?? 0) > 0).map((s) => (
          <div key={s} class="count">
            <StatusBadge status={s} /> <strong>{counts[s]}</strong>
          </div>
        ))}
        {m.paused && <StatusBadge status="paused" />}
        <div class="count">{m.complete_at ? `Completed ${formatTime(m.complete_at)}` : 'In progress'}</div>
      </div>

      <dl class="facts">
        <dt>From</dt>
        <dd>{m.from}</dd>
        <dt>Body</dt>
        <dd class="body-text">{m.body}</dd>
        <dt>Parts</dt>
        <dd>{m.num_parts}</dd>
        <dt>Credits used</dt>
        <dd>{formatNumber(m.balance_used)}</dd>
        <dt>Created</dt>
        <dd>{formatTime(m.created_at)}</dd>
        <dt>Send at</dt>
        <dd>{formatTime(m.send_at)}</dd>
        <dt>Expires at</dt>
        <dd>{formatTime(m.expires_at)}</dd>
        <dt>Reference</dt>
        <dd>{m.ref ?? '—'}</dd>
        <dt>Delivery reports to</dt>
        <dd class="wrap">{m.callbackURL ?? 'the account default'}</dd>
      </dl>

      <h2 id="recipients-title">Recipients</h2>
      <Field label="Show recipients in status">
        {({ id: fieldId }) => (
          <select
            id={fieldId}
            value={statusFilter}
            onChange={(e) => {
              setOffset(0);
              setStatusFilter(e.currentTarget.value);
            }}
          >
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        )}
      </Field>
      {recipients.error && <Notice kind="error">{recipients.error}</Notice>}
      {recipients.data && (
        <>
          <TableRegion label="Recipients">
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Recipient</th>
                  <th scope="col">Status</th>
                  <th scope="col">Code</th>
                  <th scope="col">Submitted</th>
                  <th scope="col">Sent</th>
                  <th scope="col">Final</th>
                  <th scope="col">Parts</th>
                  <th scope="col">Attempts</th>
                </tr>
              </thead>
              <tbody>
                {recipients.data.data.map((r) => (
                  <tr key={r.msisdn}>
                    <td class="mono">{r.msisdn}</td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td>{r.status_code}</td>
                    <td>{formatTime(r.submitted_at)}</td>
                    <td>{formatTime(r.sent_at)}</td>
                    <td>{formatTime(r.final_at)}</td>
                    <td>
                      {r.parts.length === 0
                        ? '—'
                        : r.parts.map((p) => (
                            <div key={p.part}>
                              {p.part}: <span class="mono">{p.carrier_id}</span> {p.state ?? 'no receipt yet'}
                            </div>
                          ))}
                    </td>
                    <td>
                      {r.attempts.length === 0
                        ? '—'
                        : r.attempts.map((a, i) => (
                            <div key={i}>
                              {a.outcome ?? 'in flight'}
                              {a.detail ? `: ${a.detail}` : ''}
                            </div>
                          ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
          <Pager
            label="Recipient pages"
            offset={offset}
            limit={PAGE}
            more={recipients.data.more_results}
            shown={recipients.data.data.length}
            onOffset={setOffset}
          />
        </>
      )}

      <h2>Delivery reports</h2>
      {deliveries.error && <Notice kind="error">{deliveries.error}</Notice>}
      {deliveries.data &&
        (deliveries.data.data.length === 0 ? (
          <p class="empty">
            No delivery report was queued for this message (none is sent without a callback URL).
          </p>
        ) : (
          <DeliveryTable
            secret={secret}
            deliveries={deliveries.data.data}
            onChanged={() => void deliveries.reload()}
          />
        ))}
    </section>
  );
}
