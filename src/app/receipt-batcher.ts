import type { CarrierReceipt } from '../carriers/port.js';

/**
 * Collects receipts for a few milliseconds and records them in one transaction, resolving each
 * caller only after the commit (an SMPP session acknowledges a receipt only once it is durable).
 */
export interface ReceiptBatcher {
  add(receipt: CarrierReceipt): Promise<void>;
  /** Records what is queued and resolves when every batch in progress is done. */
  drain(): Promise<void>;
}

export function createReceiptBatcher(
  record: (receipts: CarrierReceipt[]) => Promise<void>,
  options: { maxBatch: number; lingerMs: number },
): ReceiptBatcher {
  let queue: { receipt: CarrierReceipt; resolve: () => void; reject: (e: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return flushing;
    // Batches are recorded one after another, so receipts of one part keep their order.
    flushing = flushing.then(async () => {
      try {
        await record(batch.map((b) => b.receipt));
        batch.forEach((b) => b.resolve());
      } catch (error) {
        batch.forEach((b) => b.reject(error));
      }
    });
    return flushing;
  };

  return {
    add(receipt) {
      return new Promise((resolve, reject) => {
        queue.push({ receipt, resolve, reject });
        if (queue.length >= options.maxBatch) void flush();
        else timer ??= setTimeout(flush, options.lingerMs);
      });
    },
    drain: () => flush(),
  };
}
