import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InterruptedPolicy } from '../../src/store/engine-store.js';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { createStoreAccount, messageInput } from '../helpers/messages.js';

/**
 * Decisions §23: a node's submits are its own while its heartbeat is fresh; once it is stale,
 * another node takes them over, and an outcome the first node records afterwards changes
 * nothing.
 */

const TTL = 1_000;
const T0 = 10_000;

describe.each(ENGINES)('taking over a dead node’s sends on %s', (engineName) => {
  let db: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    db = await createTestDatabase(engineName);
    store = createStore(db.conn);
  });
  afterEach(async () => db.drop());

  const join = (id: string, now: number, policy: InterruptedPolicy = 'resend') =>
    store.engine.join({ id, host: 'test', pid: 1, startedAt: now }, now, TTL, policy);
  const recipient = async () =>
    db.conn.db
      .selectFrom('recipients')
      .select(['status', 'locked_by', 'attempts', 'due_at'])
      .executeTakeFirstOrThrow();
  const attempts = async () =>
    (
      await db.conn.db.selectFrom('submit_attempts').select(['worker', 'outcome']).orderBy('id').execute()
    ).map((a) => [a.worker, a.outcome]);

  async function claimedBy(node: string, now: number) {
    const account = await createStoreAccount(store, 'acct');
    await store.messages.createMany([messageInput(account.id, ['+61491570150'])]);
    const [work] = await store.engine.tick((ops) => ops.claimSends(node, now, 10));
    expect(work).toBeDefined();
    return work!;
  }

  it('resend: the stale node’s submit is interrupted and sent again; its late outcome is dropped', async () => {
    await join('a', T0);
    await join('b', T0);
    const work = await claimedBy('a', T0);
    expect(await recipient()).toMatchObject({ status: 'submitted', locked_by: 'a' });

    // b beats on; a does not, and is taken over once its lease has run out.
    await store.engine.beat('b', T0 + TTL);
    expect(await store.engine.staleNodes(T0 + TTL + 1, TTL)).toEqual(['a']);
    expect(await store.engine.takeOver('a', T0 + TTL + 1, TTL, 'resend')).toMatchObject({ interrupted: 1 });
    expect(await recipient()).toMatchObject({ status: 'submitted', locked_by: null, attempts: 1 });
    expect(await store.engine.beat('a', T0 + TTL + 2)).toBe(false);

    const [again] = await store.engine.tick((ops) => ops.claimSends('b', T0 + TTL + 2, 10));
    expect(again?.recipientId).toBe(work.recipientId);

    // a's answer from the carrier arrives late: recorded as an attempt, the recipient untouched.
    const late = await store.engine.tick((ops) =>
      ops.recordSubmits(
        'a',
        'c',
        [{ work, outcome: { kind: 'accepted', carrierIds: ['late-1'] }, at: T0 + TTL + 3 }],
        () => null,
        T0 + TTL + 3,
      ),
    );
    expect(late.stale).toBe(1);
    expect(await recipient()).toMatchObject({ status: 'submitted', locked_by: 'b' });
    const parts = await db.conn.db.selectFrom('recipient_parts').select('carrier_id').execute();
    expect(parts).toEqual([]);

    const fresh = await store.engine.tick((ops) =>
      ops.recordSubmits(
        'b',
        'c',
        [{ work: again!, outcome: { kind: 'accepted', carrierIds: ['b-1'] }, at: T0 + TTL + 4 }],
        () => null,
        T0 + TTL + 4,
      ),
    );
    expect(fresh.stale).toBe(0);
    expect(await recipient()).toMatchObject({ status: 'sent', locked_by: null });
    expect(await attempts()).toEqual([
      ['a', 'interrupted'],
      ['a', 'accepted'],
      ['b', 'accepted'],
    ]);
  });

  it('unknown: the stale node’s submit ends unknown and is never sent again', async () => {
    await join('a', T0, 'unknown');
    await join('b', T0, 'unknown');
    const work = await claimedBy('a', T0);
    await store.engine.beat('b', T0 + TTL);
    expect(await store.engine.takeOver('a', T0 + TTL + 1, TTL, 'unknown')).toMatchObject({
      interrupted: 1,
      changed: [expect.objectContaining({ recipientId: work.recipientId, status: 'unknown' })],
    });
    expect(await recipient()).toMatchObject({ status: 'unknown', locked_by: null });
    expect(await store.engine.tick((ops) => ops.claimSends('b', T0 + TTL + 2, 10))).toEqual([]);
    const late = await store.engine.tick((ops) =>
      ops.recordSubmits(
        'a',
        'c',
        [{ work, outcome: { kind: 'rejected', reason: 'too late' }, at: T0 + TTL + 3 }],
        () => null,
        T0 + TTL + 3,
      ),
    );
    expect(late.stale).toBe(1);
    expect(await recipient()).toMatchObject({ status: 'unknown' });
  });

  it('a node whose heartbeat is fresh is not taken over, and two nodes take over a stale one once', async () => {
    await join('a', T0);
    await claimedBy('a', T0);
    expect(await store.engine.takeOver('a', T0 + TTL - 1, TTL, 'resend')).toBeNull();
    const both = await Promise.all([
      store.engine.takeOver('a', T0 + TTL + 1, TTL, 'resend'),
      store.engine.takeOver('a', T0 + TTL + 1, TTL, 'resend'),
    ]);
    expect(both.filter((t) => t !== null)).toHaveLength(1);
    expect(await attempts()).toEqual([['a', 'interrupted']]);
  });

  it('a node leaving gives back what it held at once, without an interrupted attempt', async () => {
    await join('a', T0);
    await claimedBy('a', T0);
    await store.engine.leave('a', T0 + 5);
    expect(await recipient()).toMatchObject({ status: 'submitted', locked_by: null, due_at: T0 + 5 });
    expect(await attempts()).toEqual([]);
    expect(await store.engine.nodes()).toEqual([]);
  });
});
