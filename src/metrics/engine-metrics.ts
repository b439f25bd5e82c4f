import type { Registry } from 'prom-client';
import { STATUSES, type Status } from '../domain/status.js';
import { CounterFamily, GaugeFamily, HistogramFamily, boundBy, type CounterChild } from './families.js';

/** What a webhook attempt came to (decisions §12). */
export const WEBHOOK_OUTCOMES = ['accepted', 'retry', 'gave_up'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];
export const WEBHOOK_KINDS = ['delivery_report', 'inbound'] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/**
 * The metrics the sending engine feeds, webhooks included (decisions §12), as a typed API.
 * Each call adds to a label child bound ahead of time (statuses, kinds and outcomes when this is
 * created) or found by one Map lookup (a connector's, bound the first time it is named); see
 * families.ts for why these are not prom-client's own children.
 */
export interface EngineMetrics {
  /** `count` recipients entered `status` on this node. */
  recipientsEntered(status: Status, count?: number): void;
  /** One submit's time from sending it to the SMSC's answer. */
  submitObserved(connector: string, seconds: number): void;
  /** Binds this node holds to the connector's SMSC now. */
  connectorBinds(connector: string, binds: number): void;
  /** Submits sent to the connector and not yet answered. */
  connectorInFlight(connector: string, inFlight: number): void;
  /** Receipts taken from the connector; `matched` = they found their recipient. */
  receiptsReceived(connector: string, matched: boolean, count?: number): void;
  webhookAttempted(kind: WebhookKind, outcome: WebhookOutcome, count?: number): void;
  inboundReceived(count?: number): void;
}

/** Seconds from a submit to its answer: an SMSC on the LAN answers in milliseconds, a busy one in seconds. */
const SUBMIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Defines the engine's metrics in `registry` and returns the API that feeds them. */
export function defineEngineMetrics(registry: Registry): EngineMetrics {
  const recipients = new CounterFamily(registry, {
    name: 'smsgw_recipients_total',
    help: 'Recipients entering each status on this node',
    labelNames: ['status'],
  });
  const submits = new HistogramFamily(
    registry,
    {
      name: 'smsgw_submit_duration_seconds',
      help: 'Time from a submit to the SMSC answer',
      labelNames: ['connector'],
    },
    SUBMIT_BUCKETS,
  );
  const binds = new GaugeFamily(registry, {
    name: 'smsgw_connector_binds',
    help: 'Binds this node holds to the connector',
    labelNames: ['connector'],
  });
  const inFlight = new GaugeFamily(registry, {
    name: 'smsgw_connector_in_flight',
    help: 'Submits sent to the connector and not yet answered',
    labelNames: ['connector'],
  });
  const receipts = new CounterFamily(registry, {
    name: 'smsgw_receipts_total',
    help: 'Delivery receipts received; matched = they found their recipient',
    labelNames: ['connector', 'matched'],
  });
  const attempts = new CounterFamily(registry, {
    name: 'smsgw_webhook_attempts_total',
    help: 'Webhook attempts by kind and outcome (accepted, retry, gave_up)',
    labelNames: ['kind', 'outcome'],
  });
  const inbound = new CounterFamily(registry, {
    name: 'smsgw_inbound_total',
    help: 'Inbound messages received on this node',
  }).child();

  // Bound now, so every status and outcome reads 0 from the first scrape on.
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, recipients.child(s)])) as Record<
    Status,
    CounterChild
  >;
  const byAttempt = Object.fromEntries(
    WEBHOOK_KINDS.map((kind) => [
      kind,
      Object.fromEntries(WEBHOOK_OUTCOMES.map((outcome) => [outcome, attempts.child(kind, outcome)])),
    ]),
  ) as Record<WebhookKind, Record<WebhookOutcome, CounterChild>>;
  const submitsOf = boundBy((connector) => submits.child(connector));
  const bindsOf = boundBy((connector) => binds.child(connector));
  const inFlightOf = boundBy((connector) => inFlight.child(connector));
  const receiptsOf = boundBy((connector) => [
    receipts.child(connector, 'false'),
    receipts.child(connector, 'true'),
  ]);

  return {
    recipientsEntered: (status, count = 1) => byStatus[status].inc(count),
    submitObserved: (connector, seconds) => submitsOf(connector).observe(seconds),
    connectorBinds: (connector, n) => bindsOf(connector).set(n),
    connectorInFlight: (connector, n) => inFlightOf(connector).set(n),
    receiptsReceived: (connector, matched, count = 1) => receiptsOf(connector)[matched ? 1 : 0]!.inc(count),
    webhookAttempted: (kind, outcome, count = 1) => byAttempt[kind][outcome].inc(count),
    inboundReceived: (count = 1) => inbound.inc(count),
  };
}

/** A store's OnEntered (src/store/entered.ts) feeding `smsgw_recipients_total`. */
export function countRecipientsInto(metrics: EngineMetrics): (counts: ReadonlyMap<Status, number>) => void {
  return (counts) => {
    for (const [status, count] of counts) metrics.recipientsEntered(status, count);
  };
}
