/**
 * Webhooks: the deliveries this node holds go to its sender (src/webhooks/sender.ts), and each
 * attempt's outcome is recorded in a later turn. A delivery queued by this node's own status
 * change is held from birth and handed over after the commit; the rest (queued by the API,
 * due again after a retry, left by a node that died) are claimed origin by origin.
 */
import type {
  AccountSecrets,
  ClaimedDelivery,
  DeliveryHold,
  DeliveryResult,
  HeldDelivery,
} from '../store/webhooks.js';
import type { TickOps } from '../store/engine-store.js';
import type { WebhookSender } from '../webhooks/sender.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { Stage } from './stage.js';

export interface WebhookStage extends Stage<DeliveryResult, ClaimedDelivery> {
  /** This turn's hold: room for deliveries born held by this node. */
  hold(): DeliveryHold;
  /** Deliveries this node's API queued held, its room taken (`adopted`): sent from the next turn. */
  adopt(held: readonly HeldDelivery[]): void;
  /** Deliveries may be waiting to be claimed. */
  wake(): void;
  close(): void;
}

/**
 * The sender's room as the turns in progress share it: each turn's hold reserves what it may
 * fill, so two turns at once (PostgreSQL's two loops) never hold more than the sender takes.
 */
export interface HoldRoom {
  reserved: number;
}

/**
 * A born-held delivery as its first attempt needs it. Every report goes through here, so the
 * fields are written out in one literal (no spread copy, no one-element array for flatMap).
 */
function claimedOf(d: HeldDelivery, secrets: AccountSecrets): ClaimedDelivery {
  return {
    deliveryId: d.deliveryId,
    webhookId: d.webhookId,
    accountId: d.accountId,
    kind: d.kind,
    messageId: d.messageId,
    url: d.url,
    origin: d.origin,
    payload: d.payload,
    retryAttempts: 0,
    secrets,
  };
}

/** What each recorded attempt came to, in the terms of smsgw_webhook_attempts_total. */
const OUTCOME_OF = { delivered: 'accepted', failed: 'gave_up', retry: 'retry' } as const;

export function createWebhookStage(options: {
  readonly node: string;
  readonly sender: WebhookSender;
  /** Shared by every stage of this sender (one per loop). */
  readonly room?: HoldRoom;
  /**
   * False for a loop that only hands over the deliveries its own status changes are born
   * holding: attempts are recorded and deliveries claimed by the stage that claims.
   */
  readonly claims?: boolean;
  /** Attempts are counted once their turn has committed. */
  readonly metrics?: Pick<EngineMetrics, 'webhookAttempted'>;
  /** The API's room for the deliveries it holds, given back as their attempts are recorded. */
  readonly adopted?: { give(n: number): void };
}): WebhookStage {
  const { node, sender } = options;
  const claims = options.claims ?? true;
  const shared = options.room ?? { reserved: 0 };
  let maybeDue = claims;
  let closed = false;
  let cursor: string | null = null;
  /** Between turns: no room, nothing held. */
  const noHold = (): DeliveryHold => ({ holder: node, room: 0, accepts: () => false, held: [] });
  let current = noHold();
  /** What this stage's turn in progress reserved of the sender's room. */
  let reserved = 0;
  /** Handed over by the API and not yet taken by a turn; those the turn in progress took. */
  let adopted: HeldDelivery[] = [];
  let adopting: HeldDelivery[] = [];
  /** Deliveries from the API the sender holds: their room goes back when they are recorded. */
  const fromApi = new Set<number>();
  const giveBack = (n: number) => {
    if (n > 0) options.adopted?.give(n);
  };
  const release = () => {
    shared.reserved -= reserved;
    reserved = 0;
    current = noHold();
  };
  return {
    name: claims ? 'webhooks' : 'born-webhooks',
    hold() {
      release();
      reserved = closed ? 0 : Math.max(0, sender.room() - shared.reserved);
      shared.reserved += reserved;
      current = { holder: node, room: reserved, accepts: (o) => sender.accepts(o), held: [] };
      return current;
    },
    takeOutcomes: (limit) => (claims ? sender.drain(limit) : []),
    async record(ops: TickOps, outcomes, now) {
      await ops.recordWebhookAttempts(node, outcomes, now);
    },
    wantsClaim: () =>
      current.held.length > 0 ||
      adopted.length > 0 ||
      (!closed && maybeDue && sender.room() > shared.reserved),
    async claim(ops, now) {
      adopting = adopted;
      adopted = [];
      const born = adopting.length > 0 ? current.held.concat(adopting) : current.held;
      let work: ClaimedDelivery[] = [];
      if (born.length > 0) {
        // Signed with the account's secrets as they are now, read with the turn.
        const secrets = await ops.secretsOf([...new Set(born.map((d) => d.accountId))]);
        for (const d of born) {
          const signing = secrets.get(d.accountId);
          if (signing) work.push(claimedOf(d, signing));
        }
      }
      // What the hold left unfilled; the other loop's turn keeps its own reservation.
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
      release();
      if (adopting.length > 0) {
        const sent = new Set(work.map((d) => d.deliveryId));
        for (const d of adopting) {
          // One without an account to sign with is not sent: its room goes back now.
          if (sent.has(d.deliveryId)) fromApi.add(d.deliveryId);
          else giveBack(1);
        }
        adopting = [];
      }
      if (work.length > 0) sender.take(work);
      let recordedFromApi = 0;
      for (const r of recorded) if (fromApi.delete(r.delivery.deliveryId)) recordedFromApi += 1;
      giveBack(recordedFromApi);
      const { metrics } = options;
      if (!metrics) return;
      for (const r of recorded) {
        if (r.attempt !== null && r.next.kind !== 'release') {
          metrics.webhookAttempted(r.delivery.kind, OUTCOME_OF[r.next.kind]);
        }
      }
    },
    restore(outcomes) {
      release();
      // The API's deliveries are committed: the next turn takes them again.
      adopted = adopting.concat(adopted);
      adopting = [];
      sender.restore(outcomes);
    },
    adopt(held) {
      adopted.push(...held);
    },
    wake() {
      maybeDue = claims;
    },
    close() {
      closed = true;
    },
  };
}
