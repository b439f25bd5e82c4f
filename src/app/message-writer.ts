import type { CreateMessageResult, NewMessageInput, Store } from '../store/port.js';

/** Stores accepted messages; concurrent calls share one transaction (group commit). */
export interface MessageWriter {
  create(input: NewMessageInput): Promise<CreateMessageResult>;
}

/** Recipients per shared transaction: bounds how long one commit holds SQLite's writer. */
const MAX_RECIPIENTS_PER_COMMIT = 20_000;

/**
 * POSTs that arrive together are written in one transaction: a commit costs far more than the
 * rows of a small message, so under load many messages share it, while a lone POST still
 * commits at once (the batch is whatever queued while the previous commit ran). If a shared
 * transaction fails, each message is tried on its own so one bad row fails only its request.
 */
export function createMessageWriter(store: Store): MessageWriter {
  type Pending = {
    input: NewMessageInput;
    resolve: (r: CreateMessageResult) => void;
    reject: (e: unknown) => void;
  };
  const queue: Pending[] = [];
  let writing = false;

  const writeAlone = async (item: Pending) => {
    try {
      item.resolve((await store.messages.createMany([item.input]))[0]!);
    } catch (error) {
      item.reject(error);
    }
  };

  const takeBatch = () => {
    let recipients = 0;
    let n = 0;
    while (
      n < queue.length &&
      (n === 0 || recipients + queue[n]!.input.recipients.length <= MAX_RECIPIENTS_PER_COMMIT)
    ) {
      recipients += queue[n]!.input.recipients.length;
      n++;
    }
    return queue.splice(0, n);
  };

  const drain = async () => {
    while (queue.length > 0) {
      const batch = takeBatch();
      try {
        const results = await store.messages.createMany(batch.map((b) => b.input));
        batch.forEach((b, i) => b.resolve(results[i]!));
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else for (const item of batch) await writeAlone(item);
      }
    }
    writing = false;
  };

  return {
    create(input) {
      return new Promise((resolve, reject) => {
        queue.push({ input, resolve, reject });
        // Started on the next turn, so the requests parsed in this one join the same batch.
        if (!writing) {
          writing = true;
          setImmediate(() => void drain());
        }
      });
    },
  };
}
