import { describe, expect, it } from 'vitest';
import { createWebhookStage } from '../../src/engine/webhooks.js';
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
