import { useState } from 'preact/hooks';
import { request, withQuery } from '../api.js';
import { localInputToIso } from '../format.js';
import type { InboundMessage, Listing } from '../types.js';
import { WIDE, Field, Notice, Pager, TableRegion, useLoad, useTitle } from '../ui.js';

const PAGE = 25;

/** Messages handsets sent to the account's numbers. */
export function Inbound({ secret }: { secret: string }) {
  useTitle('Inbound messages');
  const [from, setFrom] = useState('');
  const [since, setSince] = useState('');
  const [applied, setApplied] = useState({ from: '', since: '' });
  const [sort, setSort] = useState('-messageID');
  const [offset, setOffset] = useState(0);
  const list = useLoad(
    () =>
      request<Listing<InboundMessage>>(
        secret,
        'GET',
        withQuery('/v1/sms/inbound', {
          from: applied.from.trim(),
          'created_at.min': localInputToIso(applied.since),
          sort,
          limit: PAGE,
          offset,
        }),
      ),
    [secret, applied, sort, offset],
  );
  return (
    <section aria-labelledby="inbound-title">
      <h1 id="inbound-title">Inbound messages</h1>
      <details class="filter-box" open={WIDE}>
        <summary>Filters</summary>
        <form
          class="filters"
          aria-label="Filter inbound messages"
          onSubmit={(e) => {
            e.preventDefault();
            setOffset(0);
            setApplied({ from, since });
          }}
        >
          <Field label="From">
            {({ id }) => <input id={id} value={from} onInput={(e) => setFrom(e.currentTarget.value)} />}
          </Field>
          <Field label="Received from" hint="Default: the last 24 hours">
            {({ id, describedBy }) => (
              <input
                id={id}
                type="datetime-local"
                step={1}
                value={since}
                aria-describedby={describedBy}
                onInput={(e) => setSince(e.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Sort">
            {({ id }) => (
              <select id={id} value={sort} onChange={(e) => (setOffset(0), setSort(e.currentTarget.value))}>
                <option value="-messageID">Newest first</option>
                <option value="messageID">Oldest first</option>
                <option value="from">Sender</option>
                <option value="to">Number</option>
              </select>
            )}
          </Field>
          <div class="filter-actions">
            <button type="submit" class="primary">
              Apply filters
            </button>
          </div>
        </form>
      </details>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && (
        <>
          <TableRegion label="Inbound messages">
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">messageID</th>
                  <th scope="col">Received</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">Reference</th>
                  <th scope="col">Body</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((m) => (
                  <tr key={m.messageID}>
                    <td class="mono">{m.messageID}</td>
                    <td>{new Date(Number(m.received_at) * 1000).toLocaleString()}</td>
                    <td class="mono">{m.from}</td>
                    <td class="mono">{m.to}</td>
                    <td>{m.ref ?? '—'}</td>
                    <td class="body-cell">{m.body}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
          {list.data.data.length === 0 && <p class="empty">No inbound messages in this window.</p>}
          <Pager
            label="Inbound pages"
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
