import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { SIMULATOR_CONNECTOR } from '../carriers/simulator/simulator.js';
import type { Config } from '../config/config.js';
import { ConflictError, illegal } from '../domain/errors.js';
import { normaliseMsisdn } from '../domain/msisdn.js';
import type { Store } from '../store/port.js';
import type { Database } from '../store/schema.js';
import { bothInboundSinks, smppInboundSink } from '../smpp-server/sinks.js';
import { createInboundSink } from '../webhooks/report-sink.js';

const defaultInboundSink = bothInboundSinks(createInboundSink(), smppInboundSink());

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
  /** Default: queue the inbound webhook in the durable queue. */
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
 * One inbound message: route by the `to` number, store, and queue the webhook in the same
 * commit (src/store/inbound.ts storeInboundIn, which the engine uses for its batches too).
 * STOP/START keywords (decisions §17) are honoured there too, in that commit, so a carrier's
 * inbound through the engine and the simulator's through here follow one rule
 * (src/store/opt-out.ts).
 * Carrier data is never refused (a short code or an unknown `to` is stored as given); it
 * throws only when storage fails, so a connector can leave the message unacknowledged.
 */
export async function receiveInbound(
  deps: ReceiveInboundDeps,
  message: IncomingSms,
): Promise<ReceivedInbound> {
  const hook = deps.onInboundStored;
  const stored = await deps.store.inbound.receive(
    {
      from: message.from,
      to: message.to,
      body: message.body,
      receivedAt: message.receivedAt,
      connector: message.connector ?? null,
    },
    deps.now(),
    hook
      ? async (tx, [s]) => {
          if (s!.url !== null)
            await hook(tx, { id: s!.record.id, accountId: s!.record.accountId!, url: s!.url });
        }
      : defaultInboundSink,
  );
  const { record } = stored;
  if (record.accountId === null) {
    deps.logger.warn(
      { inboundID: record.id, from: record.sender, to: record.recipient },
      'inbound message to a number routed to no account; stored unrouted',
    );
  }
  return { messageID: record.id, accountID: record.accountId };
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
