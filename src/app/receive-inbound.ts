import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { SIMULATOR_CONNECTOR } from '../carriers/simulator/simulator.js';
import type { Config } from '../config/config.js';
import { ConflictError, illegal } from '../domain/errors.js';
import { normaliseMsisdn } from '../domain/msisdn.js';
import type { Store } from '../store/port.js';
import type { Database } from '../store/schema.js';
import { createInboundHook } from '../webhooks/report-sink.js';

const defaultInboundHook = createInboundHook();

/** An inbound webhook is due for a stored message: `url` is where it goes. */
export interface InboundWebhookDue {
  readonly id: number;
  readonly accountId: number;
  readonly url: string;
}

/**
 * Called inside the transaction that stores the message, so the webhook queue row commits
 * with it (style §3): a message accepted from the carrier always gets its webhook.
 */
export type InboundStoredHook = (tx: Kysely<Database>, inbound: InboundWebhookDue) => Promise<void>;

export interface ReceiveInboundDeps {
  readonly store: Pick<Store, 'inbound'>;
  readonly now: () => number;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  readonly onInboundStored?: InboundStoredHook;
}

/** A message from a handset, as a carrier connector (or the simulator) raises it. */
export interface IncomingSms {
  readonly from: string;
  readonly to: string;
  readonly body: string;
  readonly receivedAt: number;
  /** Name of the connector it arrived on; kept so an operator can trace it. */
  readonly connector?: string;
}

export interface ReceivedInbound {
  readonly messageID: number;
  /** null: the number it was sent to routes to no account; stored, never listed. */
  readonly accountID: number | null;
}

/**
 * The one ingestion path for inbound messages: route by the `to` number, store, and queue
 * the webhook in the same commit. Carrier data is never refused: an address that is not an
 * msisdn (a short code, an alphanumeric id) is kept as given and an unknown `to` is stored
 * unrouted, because throwing here would make the SMSC redeliver a message that can never
 * succeed. It throws only when storage fails, so the connector can leave the message unacknowledged.
 */
export async function receiveInbound(
  deps: ReceiveInboundDeps,
  message: IncomingSms,
): Promise<ReceivedInbound> {
  const { store, now, logger } = deps;
  const from = normaliseMsisdn(message.from) ?? message.from;
  const to = normaliseMsisdn(message.to) ?? message.to;
  const route = await store.inbound.route(to);
  // decisions §10: the number's URL, else the account's.
  const url = route ? (route.numberUrl ?? route.accountUrl) : null;
  const at = now();
  // The durable webhook queue is the default, so every caller (engine, admin, CLI) queues it.
  const hook = deps.onInboundStored ?? defaultInboundHook;
  const record = await store.inbound.create(
    {
      accountId: route?.accountId ?? null,
      numberId: route?.numberId ?? null,
      sender: from,
      recipient: to,
      body: message.body,
      ref: route?.ref ?? null,
      receivedAt: message.receivedAt,
      // Nothing to send: completed at once. With a URL it completes when the webhook does.
      completedAt: url === null ? at : null,
      connector: message.connector ?? null,
      createdAt: at,
    },
    route && url !== null ? (tx, id) => hook(tx, { id, accountId: route.accountId, url }) : undefined,
  );
  if (!route) {
    logger.warn(
      { inboundID: record.id, from, to },
      'inbound message to a number routed to no account; stored unrouted',
    );
  }
  return { messageID: record.id, accountID: route?.accountId ?? null };
}

export interface SimulatedInbound {
  readonly from: string;
  readonly to: string;
  readonly body: string;
}

/**
 * Injects a message as if a handset sent it through the simulated carrier (decisions §8):
 * the admin API's and the CLI's shared rules. Unlike carrier data, the input is a person's,
 * so numbers that are not msisdns are refused.
 */
export async function simulateInbound(
  deps: ReceiveInboundDeps & { readonly config: Pick<Config, 'carrier'> },
  input: SimulatedInbound,
): Promise<ReceivedInbound & { readonly routed: boolean }> {
  if (deps.config.carrier !== 'simulator') {
    throw new ConflictError(
      null,
      `Inbound messages can be injected only with SMSGW_CARRIER=simulator; the carrier is ${deps.config.carrier}`,
    );
  }
  for (const name of ['from', 'to'] as const) {
    if (normaliseMsisdn(input[name]) === null)
      throw illegal(name, input[name], `${name} must be an msisdn in E.164 format, e.g. +61491570156`);
  }
  const received = await receiveInbound(deps, {
    from: input.from,
    to: input.to,
    body: input.body,
    receivedAt: deps.now(),
    connector: SIMULATOR_CONNECTOR,
  });
  return { ...received, routed: received.accountID !== null };
}
