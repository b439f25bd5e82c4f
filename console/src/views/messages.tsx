import { useEffect, useState } from 'preact/hooks';
import { request, withQuery, type Query } from '../api.js';
import { formatTime, localInputToIso } from '../format.js';
import { STATUSES, type Listing, type OutboundMessage } from '../types.js';
import { WIDE, Field, Notice, Pager, StatusBadge, TableRegion, useLoad, useTitle } from '../ui.js';

const SORTS = [
  ['-messageID', 'Newest first'],
  ['messageID', 'Oldest first'],
  ['-send_at', 'Send time, latest first'],
  ['send_at', 'Send time, earliest first'],
  ['-complete_at', 'Completed, latest first'],
  ['from', 'Sender A–Z'],
  ['ref', 'Reference A–Z'],
] as const;

interface Filters {
  from: string;
  to: string;
  status: string;
  ref: string;
  state: string;
  createdMin: string;
  createdMax: string;
  sort: string;
  limit: number;
}

const EMPTY: Filters = {
  from: '',
  to: '',
  status: '',
  ref: '',
  state: '',
  createdMin: '',
  createdMax: '',
  sort: '-messageID',
  limit: 25,
};

/** List filters the server offers beyond interface.md (decisions §16), read from its OpenAPI document. */
async function optionalFilters(): Promise<{ to: boolean; status: boolean }> {
  try {
    const doc = (await (await fetch('/v1/openapi.json')).json()) as {
      paths?: Record<string, { get?: { parameters?: { name: string }[] } }>;
    };
    const names = new Set((doc.paths?.['/v1/sms/messages']?.get?.parameters ?? []).map((p) => p.name));
    return { to: names.has('to'), status: names.has('status') };
  } catch {
    return { to: false, status: false };
  }
}

function query(f: Filters, offset: number): Query {
  return {
    from: f.from.trim(),
    to: f.to.trim(),
    status: f.status,
    ref: f.ref.trim(),
    paused: f.state === 'paused' ? true : undefined,
    completed: f.state === 'completed' ? true : f.state === 'open' ? false : undefined,
    'created_at.min': localInputToIso(f.createdMin),
    'created_at.max': localInputToIso(f.createdMax),
    sort: f.sort,
    limit: f.limit,
    offset,
  };
}

export function Messages({ secret }: { secret: string }) {
  useTitle('Messages');
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [offset, setOffset] = useState(0);
  const [extra, setExtra] = useState({ to: false, status: false });
  useEffect(() => void optionalFilters().then(setExtra), []);

  const list = useLoad(
    () =>
      request<Listing<OutboundMessage>>(secret, 'GET', withQuery('/v1/sms/messages', query(filters, offset))),
    [secret, filters, offset],
  );
  const set = (name: keyof Filters) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [name]: name === 'limit' ? Number(e.currentTarget.value) : e.currentTarget.value });

  return (
    <section aria-labelledby="messages-title">
      <div class="title-row">
        <h1 id="messages-title">Messages</h1>
        <a class="button primary" href="#/send">
          Send a message
        </a>
      </div>
      <details class="filter-box" open={WIDE}>
        <summary>Filters</summary>
        <form
          class="filters"
          aria-label="Filter messages"
          onSubmit={(e) => {
            e.preventDefault();
            setOffset(0);
            setFilters(draft);
          }}
        >
          <Field label="Sender">
            {({ id }) => (
              <input id={id} value={draft.from} onInput={set('from')} placeholder="Acme or +61…" />
            )}
          </Field>
          {extra.to && (
            <Field label="Recipient">
              {({ id }) => <input id={id} value={draft.to} onInput={set('to')} placeholder="+61…" />}
            </Field>
          )}
          {extra.status && (
            <Field label="Recipient status">
              {({ id }) => (
                <select id={id} value={draft.status} onChange={set('status')}>
                  <option value="">Any</option>
                  {STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          <Field label="Reference">
            {({ id }) => <input id={id} value={draft.ref} onInput={set('ref')} />}
          </Field>
          <Field label="State">
            {({ id }) => (
              <select id={id} value={draft.state} onChange={set('state')}>
                <option value="">Any</option>
                <option value="open">Not completed</option>
                <option value="completed">Completed</option>
                <option value="paused">Paused</option>
              </select>
            )}
          </Field>
          <Field label="Created from" hint="Default: the last 24 hours">
            {({ id, describedBy }) => (
              <input
                id={id}
                type="datetime-local"
                step={1}
                value={draft.createdMin}
                aria-describedby={describedBy}
                onInput={set('createdMin')}
              />
            )}
          </Field>
          <Field label="Created until">
            {({ id }) => (
              <input
                id={id}
                type="datetime-local"
                step={1}
                value={draft.createdMax}
                onInput={set('createdMax')}
              />
            )}
          </Field>
          <Field label="Sort">
            {({ id }) => (
              <select id={id} value={draft.sort} onChange={set('sort')}>
                {SORTS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Per page">
            {({ id }) => (
              <select id={id} value={String(draft.limit)} onChange={set('limit')}>
                {[10, 25, 50, 100].map((n) => (
                  <option key={n} value={String(n)}>
                    {n}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div class="filter-actions">
            <button type="submit" class="primary">
              Apply filters
            </button>
            <button
              type="button"
              onClick={() => {
                setDraft(EMPTY);
                setFilters(EMPTY);
                setOffset(0);
              }}
            >
              Clear
            </button>
          </div>
        </form>
      </details>

      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && (
        <>
          <TableRegion label="Messages">
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">messageID</th>
                  <th scope="col">Status</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">Body</th>
                  <th scope="col">Send at</th>
                  <th scope="col">Reference</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((m) => (
                  <tr key={m.messageID}>
                    <td>
                      <a href={`#/messages/${m.messageID}`} aria-label={`Message ${m.messageID}`}>
                        {m.messageID}
                      </a>
                    </td>
                    <td>
                      <MessageStatus secret={secret} id={m.messageID} paused={m.paused} />
                    </td>
                    <td>{m.from}</td>
                    <td>{recipientsSummary(m.to)}</td>
                    <td class="body-cell">{m.body}</td>
                    <td>{formatTime(m.send_at)}</td>
                    <td>{m.ref ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
          {list.data.data.length === 0 && (
            <p class="empty">No messages match. Messages older than 24 hours need a "Created from" date.</p>
          )}
          <Pager
            label="Message pages"
            offset={offset}
            limit={filters.limit}
            more={list.data.more_results}
            shown={list.data.data.length}
            onOffset={setOffset}
          />
        </>
      )}
    </section>
  );
}

function recipientsSummary(to: OutboundMessage['to']): string {
  const list = Array.isArray(to) ? to : Object.keys(to);
  return list.length <= 2 ? list.join(', ') : `${list[0]} and ${list.length - 1} more`;
}

/** The list endpoint has no status: each row reads its message's counts (a light request). */
function MessageStatus({ secret, id, paused }: { secret: string; id: number; paused: boolean }) {
  const counts = useLoad(
    () => request<OutboundMessage>(secret, 'GET', `/v1/sms/message/${id}/status`).then((m) => m.status ?? {}),
    [secret, id],
  );
  if (!counts.data) return <span class="muted">{counts.error ? '—' : '…'}</span>;
  const present = Object.entries(counts.data).filter(([, n]) => n > 0);
  return (
    <span class="status-list">
      {paused && <StatusBadge status="paused" />}
      {present.map(([status, n]) => (
        <span key={status}>
          <StatusBadge status={status} /> {n}
        </span>
      ))}
    </span>
  );
}
