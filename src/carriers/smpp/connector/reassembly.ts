/**
 * Concatenated MO messages, put back together. Parts of one message are keyed by sender,
 * recipient, reference and part count (references are per sender, and a handset reuses
 * them). Memory is bounded twice: a message not complete within `timeoutMs` is given up,
 * and past `maxMessages` open messages the oldest is given up. A given-up message is handed
 * to `onIncomplete` with the parts it has, so its text is not lost, only gappy: the SMSC had
 * those parts acknowledged already and will not send them again.
 */
export interface PartKey {
  readonly from: string;
  readonly to: string;
  readonly ref: number;
  readonly total: number;
}

export interface Assembly<M> {
  readonly key: PartKey;
  /** The first part's metadata (data_coding, addresses as received …). */
  readonly meta: M;
  /** By part number (1-based), in order; missing parts are absent. */
  readonly parts: readonly { readonly seq: number; readonly octets: Buffer }[];
}

interface Open<M> {
  readonly key: PartKey;
  readonly meta: M;
  readonly parts: Map<number, Buffer>;
  readonly timer: NodeJS.Timeout;
  /** Complete and being handed over; a repeated part meanwhile must not raise it twice. */
  raising: boolean;
}

export class Reassembly<M> {
  private readonly open = new Map<string, Open<M>>();

  constructor(
    private readonly timeoutMs: number,
    private readonly maxMessages: number,
    private readonly onIncomplete: (assembly: Assembly<M>) => void,
  ) {}

  /**
   * Adds one part; returns the whole message once the last missing part arrives. The message
   * stays held until finish(): if handing it over fails, the SMSC redelivers the last part
   * and the message completes again with the parts it already had.
   */
  add(key: PartKey, seq: number, octets: Buffer, meta: M): Assembly<M> | null {
    const id = idOf(key);
    let entry = this.open.get(id);
    if (!entry) {
      if (this.open.size >= this.maxMessages) this.giveUp(this.open.keys().next().value as string);
      const timer = setTimeout(() => this.giveUp(id), this.timeoutMs);
      entry = { key, meta, parts: new Map(), timer, raising: false };
      this.open.set(id, entry);
    }
    // A repeated part (the SMSC redelivered it) replaces the first copy.
    entry.parts.set(seq, octets);
    if (entry.parts.size < key.total || entry.raising) return null;
    entry.raising = true;
    return assembly(entry);
  }

  /** After add() returned the whole message: forget it when delivered, hold it again when not. */
  finish(key: PartKey, delivered: boolean): void {
    const id = idOf(key);
    if (delivered) this.close(id);
    else {
      const entry = this.open.get(id);
      if (entry) entry.raising = false;
    }
  }

  get pending(): number {
    return this.open.size;
  }

  /** Gives up every open message (on stop). */
  flush(): void {
    for (const id of [...this.open.keys()]) this.giveUp(id);
  }

  private giveUp(id: string): void {
    const entry = this.close(id);
    // One being handed over right now is complete; its own hand-over decides its fate.
    if (entry && !entry.raising) this.onIncomplete(assembly(entry));
  }

  private close(id: string): Open<M> | undefined {
    const entry = this.open.get(id);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.open.delete(id);
    return entry;
  }
}

function idOf(key: PartKey): string {
  return JSON.stringify([key.from, key.to, key.ref, key.total]);
}

function assembly<M>(entry: Open<M>): Assembly<M> {
  const parts = [...entry.parts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([seq, octets]) => ({ seq, octets }));
  return { key: entry.key, meta: entry.meta, parts };
}
