/**
 * Webhooks: the deliveries this node holds go to its sender (src/webhooks/sender.ts), and each
 * attempt's outcome is recorded in a later turn. A delivery queued by this node's own status
 * change is held from birth and handed over after the commit; the rest (queued by the API,
 * due again after a retry, left by a node that died) are claimed origin by origin.
 */
import type { ClaimedDelivery, DeliveryHold, DeliveryResult } from '../store/webhooks.js';
import type { TickOps } from '../store/engine-store.js';
import type { WebhookSender } from '../webhooks/sender.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { Stage } from './stage.js';

export interface WebhookStage extends Stage<DeliveryResult, ClaimedDelivery> {
  /** This turn's hold: room for deliveries born held by this node. */
  hold(): DeliveryHold;
  /** Deliveries may be waiting to be claimed. */
  wake(): void;
  close(): void;
}

/** What each recorded attempt came to, in the terms of smsgw_webhook_attempts_total. */
const OUTCOME_OF = { delivered: 'accepted', failed: 'gave_up', retry: 'retry' } as const;

export function createWebhookStage(options: {
  readonly node: string;
  readonly sender: WebhookSender;
  /** Attempts are counted once their turn has committed. */
  readonly metrics?: Pick<EngineMetrics, 'webhookAttempted'>;
}): WebhookStage {
  const { node, sender } = options;
  let maybeDue = true;
  let closed = false;
  let cursor: string | null = null;
  let current: DeliveryHold = { holder: node, room: 0, accepts: () => false, held: [] };
  return {
    name: 'webhooks',
    hold() {
      current = {
        holder: node,
        room: closed ? 0 : sender.room(),
        accepts: (o) => sender.accepts(o),
        held: [],
      };
      return current;
    },
    takeOutcomes: (limit) => sender.drain(limit),
    async record(ops: TickOps, outcomes, now) {
      await ops.recordWebhookAttempts(node, outcomes, now);
    },
    wantsClaim: () => current.held.length > 0 || (!closed && maybeDue && sender.room() > 0),
    async claim(ops, now) {
      const born = current.held;
      let work: ClaimedDelivery[] = [];
      if (born.length > 0) {
        // Signed with the account's secrets as they are now, read with the turn.
        const secrets = await ops.secretsOf([...new Set(born.map((d) => d.accountId))]);
        work = born.flatMap((d) => {
          const signing = secrets.get(d.accountId);
          return signing ? [{ ...d, retryAttempts: 0, secrets: signing }] : [];
        });
      }
      const room = current.room;
      if (!closed && maybeDue && room > 0) {
        const result = await ops.claimWebhooks({
          worker: node,
          now,
          limit: room,
          perOrigin: (origin) => sender.holdLimit(origin),
          held: sender.heldByOrigin(),
          after: cursor,
        });
        cursor = result.cursor;
        if (!result.more) maybeDue = false;
        work = work.concat(result.deliveries);
      }
      return work;
    },
    handle(work, recorded) {
      if (work.length > 0) sender.take(work);
      const { metrics } = options;
      if (!metrics) return;
      for (const r of recorded) {
        if (r.attempt !== null && r.next.kind !== 'release') {
          metrics.webhookAttempted(r.delivery.kind, OUTCOME_OF[r.next.kind]);
        }
      }
    },
    restore(outcomes) {
      sender.restore(outcomes);
    },
    wake() {
      maybeDue = true;
    },
    close() {
      closed = true;
    },
  };
}
