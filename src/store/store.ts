import { accountStore } from './accounts.js';
import { bindSlots } from './binds.js';
import { connectorStore } from './connectors.js';
import { engineStore } from './engine-store.js';
import { inboundStore } from './inbound.js';
import { withKeyCache } from './key-cache.js';
import type { TransitionSink } from './transitions.js';
import type { InboundStoredSink } from './inbound.js';
import type { SendHandoff } from './sending.js';
import type { DeliveryHandoff } from './webhooks.js';
import type { OnEntered } from './entered.js';
import type { Connection } from './dialect.js';
import { idempotencyStore } from './idempotency.js';
import { messageStore } from './messages.js';
import { operationsStore } from './operations.js';
import { recipientDetailStore } from './recipient-details.js';
import { retentionStore } from './retention.js';
import { smppServerStore } from './smpp/index.js';
import { statsStore } from './stats.js';
import { suppressionStore } from './suppressions.js';
import type { Store } from './port.js';
import { webhookStore } from './webhooks.js';

export interface StoreOptions {
  /** Runs inside every transaction that changes recipient statuses (webhook rows go here). */
  readonly transitionSink?: TransitionSink;
  /** Runs inside the engine's transactions that store inbound messages with a webhook to send. */
  readonly inboundSink?: InboundStoredSink;
  /** Recipients accepted due at once go straight to this node's engine, as far as it has room. */
  readonly sendHandoff?: SendHandoff;
  /** So do the webhooks those acceptances queue. */
  readonly deliveryHandoff?: DeliveryHandoff;
  /** Told after every commit that moved recipients: how many entered each status. */
  readonly onEntered?: OnEntered;
}

export function createStore(conn: Connection, options: StoreOptions = {}): Store {
  // A number put on a suppression list aborts its recipients still waiting (src/store/suppressions.ts).
  const effects = { dialect: conn.dialect, sink: options.transitionSink, onEntered: options.onEntered };
  return {
    accounts: withKeyCache(accountStore(conn.db)),
    messages: messageStore(conn.db, conn.dialect, {
      sink: options.transitionSink,
      handoff: options.sendHandoff,
      deliveries: options.deliveryHandoff,
      onEntered: options.onEntered,
    }),
    engine: engineStore(conn.db, conn.dialect, {
      transitions: options.transitionSink,
      inbound: options.inboundSink,
      entered: options.onEntered,
    }),
    inbound: inboundStore(conn.db, effects),
    connectors: connectorStore(conn.db),
    binds: bindSlots(conn.db),
    webhooks: webhookStore(conn.db),
    recipients: recipientDetailStore(conn.db),
    stats: statsStore(conn.db),
    operations: operationsStore(conn.db, conn.dialect),
    idempotency: idempotencyStore(conn.db),
    retention: retentionStore(conn.db, conn.dialect),
    suppressions: suppressionStore(conn.db, effects),
    smpp: smppServerStore(conn),
    close: () => conn.close(),
  };
}
