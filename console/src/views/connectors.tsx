import { useState } from 'preact/hooks';
import { request } from '../api.js';
import { formatNumber, formatTime } from '../format.js';
import {
  Field,
  LiveNote,
  Notice,
  StatusBadge,
  TableRegion,
  errorText,
  useInterval,
  useLoad,
  useTitle,
} from '../ui.js';

interface LiveState {
  readonly bound?: boolean;
  readonly session?: string;
  readonly inFlight?: number;
  readonly throughput?: number;
  readonly rateLimit?: number;
  readonly totals?: Record<string, number>;
  readonly errors?: Record<string, number>;
  /** `at` is RFC 3339, like every date-time of the API. */
  readonly lastError?: { at: string; kind: string; detail: string } | null;
}

interface Connector {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly system_id: string;
  readonly bind_mode: string;
  readonly tls: boolean;
  readonly window: number;
  readonly throughput: number;
  readonly concatenation: string;
  readonly enabled: boolean;
  readonly updated_at: string | null;
  readonly state: LiveState | null;
}

interface Route {
  readonly routeID: number;
  readonly prefix: string;
  readonly connector: string;
  readonly priority: number;
}

type Note = { kind: 'error' | 'success'; text: string } | null;

/** SMPP connectors with their live state on this node, and the routes that choose them. */
export function Connectors({ secret }: { secret: string }) {
  useTitle('Connectors');
  const [at, setAt] = useState<number | null>(null);
  const connectors = useLoad(async () => {
    const list = await request<{ connectors: Connector[] }>(secret, 'GET', '/admin/v1/connectors');
    setAt(Date.now());
    return list.connectors;
  }, [secret]);
  const routes = useLoad(
    async () => (await request<{ routes: Route[] }>(secret, 'GET', '/admin/v1/routes')).routes,
    [secret],
  );
  useInterval(() => void connectors.reload(), 2000);
  const [note, setNote] = useState<Note>(null);
  const [editing, setEditing] = useState<Connector | 'new' | null>(null);

  const run = async (what: () => Promise<unknown>, done: string) => {
    setNote(null);
    try {
      await what();
      setNote({ kind: 'success', text: done });
      await Promise.all([connectors.reload(), routes.reload()]);
      return true;
    } catch (e) {
      setNote({ kind: 'error', text: errorText(e) });
      return false;
    }
  };

  return (
    <section aria-labelledby="connectors-title">
      <div class="title-row">
        <h1 id="connectors-title">Connectors</h1>
        <button type="button" class="primary" onClick={() => setEditing('new')}>
          Add connector
        </button>
      </div>
      <LiveNote at={at} />
      {note && <Notice kind={note.kind}>{note.text}</Notice>}
      {connectors.error && <Notice kind="error">{connectors.error}</Notice>}
      {editing && (
        <ConnectorForm
          connector={editing === 'new' ? null : editing}
          onCancel={() => setEditing(null)}
          onSave={async (body) => {
            const ok = await run(
              () =>
                editing === 'new'
                  ? request(secret, 'POST', '/admin/v1/connectors', body)
                  : request(
                      secret,
                      'PATCH',
                      `/admin/v1/connectors/${encodeURIComponent(editing.name)}`,
                      body,
                    ),
              editing === 'new'
                ? `Connector ${String(body.name)} added.`
                : `Connector ${editing.name} saved; it rebinds.`,
            );
            if (ok) setEditing(null);
          }}
        />
      )}
      {connectors.data && connectors.data.length === 0 && (
        <p class="empty">
          No SMPP connector is configured. With SMSGW_CARRIER=smpp, add one to reach an SMSC.
        </p>
      )}
      {connectors.data && connectors.data.length > 0 && (
        <TableRegion label="Connectors">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">SMSC</th>
                <th scope="col">Window in use</th>
                <th scope="col">Throughput</th>
                <th scope="col">Submits</th>
                <th scope="col">Errors</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {connectors.data.map((c) => (
                <tr key={c.name} data-connector={c.name}>
                  <td>{c.name}</td>
                  <td>
                    <StatusBadge status={!c.enabled ? 'disabled' : c.state?.bound ? 'bound' : 'unbound'} />
                    {c.state?.session && c.state.session !== 'bound' && (
                      <div class="muted">{c.state.session}</div>
                    )}
                  </td>
                  <td class="mono">
                    {c.host}:{c.port}
                    {c.tls ? ' (TLS)' : ''}
                  </td>
                  <td>
                    {formatNumber(c.state?.inFlight ?? 0)} of {c.window}
                  </td>
                  <td>
                    {formatNumber(c.state?.throughput ?? 0)}/s
                    {c.throughput > 0 ? ` (limit ${c.throughput}/s)` : ''}
                  </td>
                  <td>{formatNumber(c.state?.totals?.submits ?? 0)}</td>
                  <td>
                    {Object.entries(c.state?.errors ?? {}).map(([kind, n]) => (
                      <div key={kind}>
                        {kind}: {n}
                      </div>
                    ))}
                    {c.state?.lastError && (
                      <div class="muted">
                        Last: {c.state.lastError.detail} ({formatTime(c.state.lastError.at)})
                      </div>
                    )}
                  </td>
                  <td class="row-actions">
                    <button
                      type="button"
                      onClick={() => setEditing(c)}
                      aria-label={`Edit connector ${c.name}`}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      onClick={() =>
                        void run(
                          () =>
                            request(secret, 'PATCH', `/admin/v1/connectors/${encodeURIComponent(c.name)}`, {
                              enabled: !c.enabled,
                            }),
                          `Connector ${c.name} ${c.enabled ? 'disabled' : 'enabled'}.`,
                        )
                      }
                    >
                      {c.enabled ? 'Disable' : 'Enable'}
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Remove connector ${c.name}`}
                      onClick={() =>
                        confirm(`Remove connector ${c.name} and its routes?`) &&
                        void run(
                          () =>
                            request(secret, 'DELETE', `/admin/v1/connectors/${encodeURIComponent(c.name)}`),
                          `Connector ${c.name} removed.`,
                        )
                      }
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}

      <h2>Routes</h2>
      <p class="hint">
        Tried in this order: lower priority first, then the longer prefix; a connector not bound is skipped.
      </p>
      {routes.error && <Notice kind="error">{routes.error}</Notice>}
      {routes.data && (
        <TableRegion label="Routes">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Prefix</th>
                <th scope="col">Connector</th>
                <th scope="col">Priority</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {routes.data.map((r) => (
                <tr key={r.routeID}>
                  <td class="mono">{r.prefix}</td>
                  <td>{r.connector}</td>
                  <td>{r.priority}</td>
                  <td>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Remove route ${r.prefix} to ${r.connector}`}
                      onClick={() =>
                        void run(
                          () => request(secret, 'DELETE', `/admin/v1/routes/${r.routeID}`),
                          'Route removed.',
                        )
                      }
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
              {routes.data.length === 0 && (
                <tr>
                  <td colSpan={4}>No routes: every destination is aborted until one matches.</td>
                </tr>
              )}
            </tbody>
          </table>
        </TableRegion>
      )}
      <AddRoute
        connectors={(connectors.data ?? []).map((c) => c.name)}
        onAdd={(body) =>
          run(() => request(secret, 'POST', '/admin/v1/routes', body), `Route ${body.prefix} added.`)
        }
      />
    </section>
  );
}

interface FormProps {
  readonly connector: Connector | null;
  readonly onCancel: () => void;
  readonly onSave: (body: Record<string, unknown>) => Promise<void>;
}

function ConnectorForm({ connector, onCancel, onSave }: FormProps) {
  const [v, setV] = useState({
    name: connector?.name ?? '',
    host: connector?.host ?? '',
    port: String(connector?.port ?? 2775),
    system_id: connector?.system_id ?? '',
    password: '',
    bind_mode: connector?.bind_mode ?? 'transceiver',
    window: String(connector?.window ?? 10),
    throughput: String(connector?.throughput ?? 0),
    concatenation: connector?.concatenation ?? 'udh8',
    tls: connector?.tls ?? false,
  });
  const text = (name: keyof typeof v) => (e: { currentTarget: { value: string } }) =>
    setV({ ...v, [name]: e.currentTarget.value });
  return (
    <form
      class="card grid-form"
      aria-labelledby="connector-form-title"
      onSubmit={(e) => {
        e.preventDefault();
        void onSave({
          ...(connector === null && { name: v.name.trim() }),
          host: v.host.trim(),
          port: Number(v.port),
          system_id: v.system_id,
          ...((connector === null || v.password !== '') && { password: v.password }),
          bind_mode: v.bind_mode,
          window: Number(v.window),
          throughput: Number(v.throughput),
          concatenation: v.concatenation,
          tls: v.tls,
        });
      }}
    >
      <h2 id="connector-form-title">{connector ? `Edit ${connector.name}` : 'Add a connector'}</h2>
      {connector === null && (
        <Field label="Name">
          {({ id }) => <input id={id} required value={v.name} onInput={text('name')} />}
        </Field>
      )}
      <Field label="Host">
        {({ id }) => <input id={id} required value={v.host} onInput={text('host')} />}
      </Field>
      <Field label="Port">
        {({ id }) => (
          <input id={id} type="number" min={1} max={65535} value={v.port} onInput={text('port')} />
        )}
      </Field>
      <Field label="System ID">
        {({ id }) => <input id={id} required value={v.system_id} onInput={text('system_id')} />}
      </Field>
      <Field label="Password" hint={connector ? 'Empty keeps the current one' : 'At most 8 characters'}>
        {({ id, describedBy }) => (
          <input
            id={id}
            type="password"
            autoComplete="off"
            value={v.password}
            aria-describedby={describedBy}
            onInput={text('password')}
          />
        )}
      </Field>
      <Field label="Bind mode">
        {({ id }) => (
          <select id={id} value={v.bind_mode} onChange={text('bind_mode')}>
            <option value="transceiver">transceiver</option>
            <option value="transmitter_receiver">transmitter + receiver</option>
          </select>
        )}
      </Field>
      <Field label="Window" hint="Submits awaiting a response at once">
        {({ id, describedBy }) => (
          <input
            id={id}
            type="number"
            min={1}
            max={1000}
            value={v.window}
            aria-describedby={describedBy}
            onInput={text('window')}
          />
        )}
      </Field>
      <Field label="Throughput limit" hint="submit_sm per second; 0 = unlimited">
        {({ id, describedBy }) => (
          <input
            id={id}
            type="number"
            min={0}
            value={v.throughput}
            aria-describedby={describedBy}
            onInput={text('throughput')}
          />
        )}
      </Field>
      <Field label="Concatenation">
        {({ id }) => (
          <select id={id} value={v.concatenation} onChange={text('concatenation')}>
            {['udh8', 'udh16', 'sar', 'payload'].map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div class="check">
        <input
          id="connector-tls"
          type="checkbox"
          checked={v.tls}
          onChange={(e) => setV({ ...v, tls: e.currentTarget.checked })}
        />
        <label for="connector-tls">Connect over TLS</label>
      </div>
      <div class="filter-actions">
        <button type="submit" class="primary">
          {connector ? 'Save connector' : 'Add connector'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function AddRoute(props: {
  connectors: string[];
  onAdd: (body: { prefix: string; connector: string; priority: number }) => Promise<boolean>;
}) {
  const [prefix, setPrefix] = useState('+');
  const [connector, setConnector] = useState('');
  const [priority, setPriority] = useState('0');
  return (
    <form
      class="inline-form"
      aria-label="Add a route"
      onSubmit={(e) => {
        e.preventDefault();
        void props
          .onAdd({
            prefix: prefix.trim(),
            connector: connector || props.connectors[0] || '',
            priority: Number(priority),
          })
          .then((ok) => ok && setPrefix('+'));
      }}
    >
      <Field label="Prefix" hint="+ and digits; + alone matches every number">
        {({ id, describedBy }) => (
          <input
            id={id}
            value={prefix}
            aria-describedby={describedBy}
            onInput={(e) => setPrefix(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Route to connector">
        {({ id }) => (
          <select
            id={id}
            value={connector || props.connectors[0]}
            onChange={(e) => setConnector(e.currentTarget.value)}
          >
            {props.connectors.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Priority">
        {({ id }) => (
          <input id={id} type="number" value={priority} onInput={(e) => setPriority(e.currentTarget.value)} />
        )}
      </Field>
      <button type="submit" disabled={props.connectors.length === 0}>
        Add route
      </button>
    </form>
  );
}
