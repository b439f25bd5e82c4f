import type { Logger } from 'pino';
import type { CarrierConnector, CarrierEvents, SubmitOutcome, SubmitRequest } from '../port.js';
import { inTryOrder, type Route } from './routes.js';

/** What the router and the metrics read of a link's state. */
export interface LinkState {
  readonly bound: boolean;
  /** Submits sent and not yet answered. */
  readonly inFlight?: number;
}

/** A carrier link the router can choose: an SMPP connector, or anything with a bound state. */
export interface ChildConnector extends CarrierConnector {
  state(): LinkState;
  /** state().bound, without building the rest of the state: the router asks it per submit. */
  isBound(): boolean;
  capacity?(): number;
}

export interface ChildConfig {
  readonly name: string;
  readonly enabled: boolean;
  /** Binds to this SMSC across all nodes; absent: no limit across nodes. */
  readonly maxBinds?: number;
}

/** A node's share of the binds an SMSC allows (src/store/binds.ts, bound to this node's id). */
export interface BindShare {
  /** This node may bind `connector` (it holds one of its `maxBinds` slots). */
  acquire(connector: string, maxBinds: number): Promise<boolean>;
  release(connector: string): Promise<void>;
}

export interface RouterOptions<C extends ChildConfig> {
  /** The router's own name: parts and receipts are recorded under it. */
  readonly name: string;
  /** Current connectors and routes (from the database). */
  readonly load: () => Promise<{ connectors: readonly C[]; routes: readonly Route[] }>;
  readonly create: (config: C) => ChildConnector;
  /** Cluster-wide bind limits; absent: every node binds every connector. */
  readonly binds?: BindShare;
  readonly logger: Logger;
  /** Reload period, so changes made on another node are picked up. */
  readonly reloadEveryMs?: number;
}

export interface Router extends CarrierConnector {
  /**
   * Submits worth handing over at once: what the bound connectors take, and a few even when
   * none is, so a recipient no route matches is still aborted and one with no bound connector
   * waits with its retry backoff.
   */
  capacity(): number;
  /** Re-reads connectors and routes now (after an admin change on this node). */
  reload(): Promise<void>;
  /** Each running connector's live state (bound, in flight, throughput, errors). */
  states(): Record<string, LinkState>;
}

const MIN_CAPACITY = 10;

/** Carrier ids are namespaced by connector, so two SMSCs' id spaces never collide. */
const SEPARATOR = '/';

/**
 * Chooses a connector per destination: the matching routes in priority order, skipping
 * connectors that are not bound (failover). No matching route at all: the recipient is
 * aborted (decisions §7, "no route"); routes exist but none is bound: retry later.
 */
export function createRouter<C extends ChildConfig>(options: RouterOptions<C>): Router {
  const children = new Map<string, { config: string; connector: ChildConnector }>();
  /** In the order they are tried (inTryOrder), sorted once per reload rather than per submit. */
  let routes: readonly Route[] = [];
  let events: CarrierEvents | null = null;
  let timer: NodeJS.Timeout | null = null;
  let reloading: Promise<void> = Promise.resolve();

  const childEvents = (name: string): CarrierEvents => ({
    receipt: (r) => {
      const carrierId = `${name}${SEPARATOR}${r.carrierId}`;
      const { state, at, error } = r;
      // Written out rather than spread: a receipt per message comes through here.
      return events!.receipt(
        error === undefined
          ? { carrierId, state, at, connector: name }
          : { carrierId, state, at, error, connector: name },
      );
    },
    inbound: (m) => events!.inbound(m),
  });

  /** Connectors other nodes hold every bind of, so this node leaves them alone for now. */
  const elsewhere = new Set<string>();
  const apply = async () => {
    const loaded = await options.load();
    routes = inTryOrder(loaded.routes);
    const wanted = new Map(loaded.connectors.filter((c) => c.enabled).map((c) => [c.name, c]));
    for (const [name, child] of children) {
      const config = wanted.get(name);
      const keep =
        config !== undefined && JSON.stringify(config) === child.config && (await mayBind(name, config));
      if (!keep) {
        children.delete(name);
        await child.connector.stop();
        await options.binds?.release(name);
        options.logger.info(
          { connector: name },
          config ? 'connector changed or its bind given up; stopping' : 'connector removed',
        );
      }
    }
    for (const name of elsewhere) if (!wanted.has(name)) elsewhere.delete(name);
    for (const [name, config] of wanted) {
      if (children.has(name)) continue;
      if (!(await mayBind(name, config))) {
        if (!elsewhere.has(name)) {
          elsewhere.add(name);
          options.logger.info(
            { connector: name, maxBinds: config.maxBinds },
            'every bind of this connector is held by other nodes; not binding here',
          );
        }
        continue;
      }
      elsewhere.delete(name);
      const connector = options.create(config);
      children.set(name, { config: JSON.stringify(config), connector });
      await connector.start(childEvents(name));
      options.logger.info({ connector: name }, 'connector started');
    }
  };
  const mayBind = (name: string, config: C) =>
    options.binds && config.maxBinds !== undefined
      ? options.binds.acquire(name, config.maxBinds)
      : Promise.resolve(true);

  const reload = () => {
    // Serialised: two reloads never start the same connector twice.
    reloading = reloading
      .then(apply)
      .catch((error: unknown) => options.logger.error({ err: error }, 'routing reload failed'));
    return reloading;
  };

  return {
    name: options.name,
    reload,
    states: () => Object.fromEntries([...children].map(([name, c]) => [name, c.connector.state()])),
    capacity() {
      let total = 0;
      for (const { connector } of children.values()) {
        if (connector.isBound()) total += connector.capacity?.() ?? 0;
      }
      return Math.max(MIN_CAPACITY, total);
    },
    async start(e) {
      events = e;
      await reload();
      timer = setInterval(() => void reload(), options.reloadEveryMs ?? 5000);
    },
    async submit(request: SubmitRequest): Promise<SubmitOutcome> {
      const { to } = request;
      let matched = false;
      for (const route of routes) {
        if (!to.startsWith(route.prefix)) continue;
        matched = true;
        const child = children.get(route.connector);
        if (!child || !child.connector.isBound()) continue;
        const outcome = await child.connector.submit(request);
        // Not bound at the moment of the submit: nothing left us, so the next route may try.
        if (outcome.kind === 'retry' && outcome.reason.startsWith('not-bound')) continue;
        if (outcome.kind !== 'accepted') return { ...outcome, connector: route.connector };
        return {
          kind: 'accepted',
          connector: route.connector,
          carrierIds: outcome.carrierIds.map((id) => `${route.connector}${SEPARATOR}${id}`),
        };
      }
      if (!matched) return { kind: 'aborted', reason: `no route for ${to}` };
      const matching = routes.filter((r) => to.startsWith(r.prefix));
      return {
        kind: 'retry',
        reason: `no bound connector for ${to} (routes: ${matching.map((r) => r.connector).join(', ')})`,
      };
    },
    async stop() {
      if (timer) clearInterval(timer);
      await reloading;
      await Promise.all(
        [...children].map(async ([name, c]) => {
          await c.connector.stop();
          await options.binds?.release(name);
        }),
      );
      children.clear();
    },
  };
}
