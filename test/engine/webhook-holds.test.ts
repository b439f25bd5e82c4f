import { describe, expect, it } from 'vitest';
import { createWebhookStage } from '../../src/engine/webhooks.js';
import type { TickOps } from '../../src/store/engine-store.js';
import type { DeliveryResult, HeldDelivery } from '../../src/store/webhooks.js';
import type { WebhookSender } from '../../src/webhooks/sender.js';

/** A sender with room for `room` more deliveries, counting what it is handed. */
function senderWithRoom(room: number) {
  let held = 0;
  const sender = {
    room: () => room - held,
    accepts: () => true,
    take: (work: readonly unknown[]) => (held += work.length),
    drain: () => [],
    restore: () => {},
    heldByOrigin: () => new Map(),
    holdLimit: () => room,
  } as unknown as WebhookSender;
  return sender;
}

describe('webhook holds of two loops at once', () => {
  it('share the sender’s room: together they never hold more than it takes', () => {
    const sender = senderWithRoom(10);
    const room = { reserved: 0 };
    const main = createWebhookStage({ node: 'n1', sender, room });
    const events = createWebhookStage({ node: 'n1', sender, room, claims: false });

    const a = main.hold();
    const b = events.hold();
    expect(a.room + b.room).toBe(10);
    expect(b.room).toBe(0);

    // The main loop's turn ends (committed or rolled back): its reservation is free again.
    main.restore([]);
    expect(events.hold().room).toBe(10);
    events.handle([], []);
    expect(main.hold().room).toBe(10);
  });

  it('the loop that only hands over born deliveries claims none and records none', () => {
    const events = createWebhookStage({ node: 'n1', sender: senderWithRoom(10), claims: false });
    events.hold();
    expect(events.wantsClaim(0)).toBe(false);
    events.wake();
    expect(events.wantsClaim(0)).toBe(false);
    expect(events.takeOutcomes(100)).toEqual([]);
  });
});

describe('webhooks the API hands over', () => {
  const delivery = (deliveryId: number, accountId = 1): HeldDelivery => ({
    deliveryId,
    webhookId: `msg_${deliveryId}`,
    accountId,
    kind: 'delivery_report',
    messageId: 7,
    url: 'http://127.0.0.1:9/dlr',
    origin: 'http://127.0.0.1:9',
    payload: '{}',
  });
  /** A turn's store: accounts 1 and 2 have secrets, any other none; nothing to claim. */
  const ops = {
    claimWebhooks: async () => ({ deliveries: [], cursor: null, more: false, backlogged: [] }),
    secretsOf: async (ids: number[]) =>
      new Map(
        ids.filter((id) => id <= 2).map((id) => [id, { current: 's', previous: null, previousUntil: null }]),
      ),
  } as unknown as TickOps;
  const outcome = (deliveryId: number): DeliveryResult => ({
    delivery: { deliveryId, kind: 'delivery_report', messageId: 7, origin: 'http://127.0.0.1:9' },
    attempt: { attemptedAt: 0, durationMs: 1, status: 200, error: null, responseExcerpt: '' },
    next: { kind: 'delivered' },
  });

  it('go to the sender with the next turn, and their room back to the API once recorded', async () => {
    const taken: number[] = [];
    const sender = {
      ...senderWithRoom(10),
      take: (work: { deliveryId: number }[]) => taken.push(...work.map((d) => d.deliveryId)),
    };
    let given = 0;
    const stage = createWebhookStage({
      node: 'n1',
      sender: sender as unknown as WebhookSender,
      adopted: { give: (n) => (given += n) },
    });
    stage.hold();
    // Account 3 has no secret to sign with: never sent, its room back at once.
    stage.adopt([delivery(1), delivery(2), delivery(3, 3)]);
    expect(stage.wantsClaim(0)).toBe(true);
    const work = await stage.claim(ops, 0);
    stage.handle(work, []);
    expect(taken).toEqual([1, 2]);
    expect(given).toBe(1);

    stage.hold();
    stage.handle([], [outcome(1)]);
    expect(given).toBe(2);
    // Recorded again (another node's attempt, a stale one): counted once.
    stage.hold();
    stage.handle([], [outcome(1), outcome(2)]);
    expect(given).toBe(3);
  });

  it('are taken again by the next turn when the one that took them rolls back', async () => {
    const taken: number[] = [];
    const sender = {
      ...senderWithRoom(10),
      take: (work: { deliveryId: number }[]) => taken.push(...work.map((d) => d.deliveryId)),
    };
    const stage = createWebhookStage({ node: 'n1', sender: sender as unknown as WebhookSender });
    stage.hold();
    stage.adopt([delivery(1)]);
    await stage.claim(ops, 0);
    stage.restore([]);
    expect(taken).toEqual([]);

    stage.hold();
    expect(stage.wantsClaim(0)).toBe(true);
    stage.handle(await stage.claim(ops, 0), []);
    expect(taken).toEqual([1]);
  });
});
