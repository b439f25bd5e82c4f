import { describe, expect, it } from 'vitest';
import { createMessageWriter } from '../../src/app/message-writer.js';
import type { NewMessageInput, Store } from '../../src/store/port.js';
import { messageInput, msisdns } from '../helpers/messages.js';

const input = (body: string, recipients = 1): NewMessageInput =>
  messageInput(1, msisdns(recipients, 91_570_000), { body });

/** A message store that numbers what it stores and refuses bodies saying "bad". */
function fakeStore() {
  const transactions: string[][] = [];
  let nextId = 1;
  const store = {
    messages: {
      createMany: async (items: readonly NewMessageInput[]) => {
        if (items.some((i) => i.message.body === 'bad')) throw new Error('constraint failed');
        transactions.push(items.map((i) => i.message.body));
        return items.map(() => ({ kind: 'created' as const, id: nextId++ }));
      },
    },
  } as unknown as Store;
  return { store, transactions };
}

describe('message writer (group commit)', () => {
  it('writes messages that arrive together in one transaction, each caller getting its own id', async () => {
    const { store, transactions } = fakeStore();
    const writer = createMessageWriter(store);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => writer.create(input(`m${i}`))));
    expect(transactions).toHaveLength(1);
    expect(new Set(results.map((r) => (r.kind === 'created' ? r.id : 0))).size).toBe(50);
    expect(transactions[0]).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
  });

  it('a lone message is written straight away, and later ones in a transaction of their own', async () => {
    const { store, transactions } = fakeStore();
    const writer = createMessageWriter(store);
    await writer.create(input('first'));
    await writer.create(input('second'));
    expect(transactions).toEqual([['first'], ['second']]);
  });

  it('when a shared transaction fails, only the message that caused it fails', async () => {
    const { store, transactions } = fakeStore();
    const writer = createMessageWriter(store);
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((b) => writer.create(input(b))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(transactions).toEqual([['a'], ['c']]);
  });

  it('caps the recipients one transaction carries', async () => {
    const { store, transactions } = fakeStore();
    const writer = createMessageWriter(store);
    await Promise.all(Array.from({ length: 3 }, (_, i) => writer.create(input(`big${i}`, 10_000))));
    expect(transactions).toEqual([['big0', 'big1'], ['big2']]);
  });
});
