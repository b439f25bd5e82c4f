/**
 * Sends the queued deliver_sm (receipts, MO) of accounts bound on this node to their receiver
 * and transceiver binds, spread over them in turn, and marks each done on its deliver_sm_resp.
 * Rows wait in the store while no bind of their account is open anywhere; a row held by a node
 * that dies is claimable again when its lease runs out. Loops get their operations as
 * functions (style §4): this file knows a store port and sessions, not SQL or sockets.
 */
import type { Logger } from 'pino';
import { CommandStatus } from '../carriers/smpp/pdu/index.js';
import type { HeldSmppDelivery, SmppDeliveryStore } from '../store/smpp/index.js';
import { deliverPdu, type DeliveryPayload } from './deliver-pdu.js';
import { RESPONSE_TIMEOUT_MS, type CustomerSession } from './session.js';

/** A claimed row is the node's for this long: more than a deliver_sm can take to be answered. */
const LEASE_MS = 60_000;
/** Rows claimed at once for one account. */
const MAX_CLAIM = 500;
/** How often the store is asked for new rows while receivers are bound (other nodes' commits wake nobody here). */
const POLL_MS = 200;
/** After a deliver_sm the customer refused or left unanswered: 5 s, growing to 5 min. */
function retryDelay(attempts: number): number {
  return Math.min(5_000 * 2 ** Math.max(0, attempts - 1), 300_000);
}

export interface Deliverer {
  receiverReady(session: CustomerSession, ready: boolean): void;
  /** New rows may be due (a local commit queued some). */
  wake(): void;
  stop(): Promise<void>;
}

export function startDeliverer(deps: {
  readonly deliveries: SmppDeliveryStore;
  readonly node: string;
  readonly now: () => number;
  readonly logger: Logger;
}): Deliverer {
  const { deliveries, node, now, logger } = deps;
  const receivers = new Map<number, CustomerSession[]>();
  const turns = new Map<number, number>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();

  const room = (accountId: number) =>
    (receivers.get(accountId) ?? [])
      .filter((s) => s.link.isOpen)
      .reduce((n, s) => n + Math.max(0, s.window - s.delivering), 0);

  /** The account's open receiver with room, taking them in turn. */
  const pick = (accountId: number): CustomerSession | null => {
    const open = (receivers.get(accountId) ?? []).filter((s) => s.link.isOpen && s.delivering < s.window);
    if (open.length === 0) return null;
    const turn = turns.get(accountId) ?? 0;
    turns.set(accountId, turn + 1);
    return open[turn % open.length]!;
  };

  const deliver = async (row: HeldSmppDelivery, session: CustomerSession) => {
    session.delivering++;
    let ok = false;
    try {
      const payload = JSON.parse(row.payload) as DeliveryPayload;
      const reply = await session.link.request(deliverPdu(payload), RESPONSE_TIMEOUT_MS);
      ok = reply.kind === 'response' && reply.pdu.commandStatus === CommandStatus.ESME_ROK;
      if (!ok) {
        const why = reply.kind === 'response' ? `status ${reply.pdu.commandStatus}` : reply.detail;
        logger.debug({ id: row.id, why, attempts: row.attempts }, 'deliver_sm not acknowledged');
      }
    } catch (err) {
      logger.error({ err, id: row.id }, 'deliver_sm could not be built; retried later');
    } finally {
      session.delivering--;
    }
    if (ok) return acknowledged(row.id);
    const at = now();
    // A bind that went away mid-request: the row is free at once for another bind.
    const retryAt = session.link.isOpen ? at + retryDelay(row.attempts) : at;
    await deliveries
      .retry(node, [row.id], retryAt)
      .catch((err: unknown) =>
        logger.warn({ err, id: row.id }, 'delivery outcome not recorded; its lease will free it'),
      );
  };

  // Acknowledged rows are marked done together, one statement per batch rather than per
  // receipt: at a thousand receipts a second the single UPDATEs competed with the submits'
  // own commits for the database.
  let done: number[] = [];
  let flushing: Promise<void> | null = null;
  const acknowledged = (id: number): Promise<void> => {
    done.push(id);
    flushing ??= (async () => {
      await new Promise((r) => setImmediate(r));
      while (done.length > 0) {
        const ids = done;
        done = [];
        await deliveries
          .complete(node, ids, now())
          .catch((err: unknown) =>
            logger.warn({ err, n: ids.length }, 'deliveries not marked done; their leases will free them'),
          );
      }
      flushing = null;
      wake();
    })();
    return flushing;
  };

  const round = async () => {
    // Account by account, each as many as its binds have room for: a claim never holds rows
    // no bind can take now (they would wait out a retry they never earned).
    for (const accountId of [...receivers.keys()]) {
      const limit = Math.min(room(accountId), MAX_CLAIM);
      if (limit <= 0) continue;
      const at = now();
      const rows = await deliveries.claim(node, [accountId], at, at + LEASE_MS, limit);
      const unsent: number[] = [];
      for (const row of rows) {
        const session = pick(row.accountId);
        if (!session) {
          unsent.push(row.id);
          continue;
        }
        const p = deliver(row, session).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      // The binds went while the claim ran: free for the next one at once.
      if (unsent.length > 0) await deliveries.retry(node, unsent, at);
      // A full claim may leave more due: go on at once.
      if (rows.length >= limit) again = true;
    }
  };

  const run = () => {
    if (stopped || running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await round();
        } catch (err) {
          logger.warn({ err }, 'smpp delivery round failed');
        }
      } while (again && !stopped);
      running = null;
    })();
  };

  function wake() {
    run();
  }

  const schedule = () => {
    if (timer || stopped) return;
    timer = setInterval(run, POLL_MS);
    timer.unref();
  };

  return {
    receiverReady(session, ready) {
      const list = receivers.get(session.accountId) ?? [];
      if (ready) {
        list.push(session);
        receivers.set(session.accountId, list);
        schedule();
        run();
      } else {
        const rest = list.filter((s) => s !== session);
        if (rest.length > 0) receivers.set(session.accountId, rest);
        else receivers.delete(session.accountId);
        if (receivers.size === 0 && timer) {
          clearInterval(timer);
          timer = null;
        }
      }
    },
    wake,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
      await Promise.all([...inFlight]);
      await flushing;
    },
  };
}
