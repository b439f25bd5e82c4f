/**
 * The message ids this link's submit_sm_resps returned recently, so a receipt that quotes an
 * id in the other form (decimal for hex, zero-padded, upper case) is reported under the id
 * the engine stored. Bounded: the oldest ids go first; a receipt for an id that has gone
 * is reported as it came, which is right whenever the SMSC uses one form throughout.
 */
import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../../../bounded-cache.js';
import { messageIdsMatch } from '../pdu/index.js';

function normalise(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/^0+(?=.)/, '');
}

/** The other readings of an id: hex → decimal and decimal → hex, when it looks like either. */
function otherForms(id: string): string[] {
  const forms: string[] = [];
  if (/^[0-9a-f]{1,64}$/.test(id)) forms.push(BigInt(`0x${id}`).toString(10));
  if (/^\d{1,80}$/.test(id)) forms.push(BigInt(id).toString(16));
  return forms;
}

export class RecentIds {
  private readonly ids: LRUCache<string, string>;

  constructor(capacity: number) {
    this.ids = boundedCache(capacity);
  }

  add(id: string): void {
    const key = normalise(id);
    if (key === '') return;
    this.ids.set(key, id);
  }

  /** The id as submitted, or null when no recent submit matches. */
  find(receiptId: string): string | null {
    const key = normalise(receiptId);
    // The same form as submitted is the common case: no need to try the others (BigInt parses).
    const same = this.ids.peek(key);
    if (same !== undefined && messageIdsMatch(same, receiptId)) return same;
    for (const form of otherForms(key)) {
      const found = this.ids.peek(form);
      if (found !== undefined && messageIdsMatch(found, receiptId)) return found;
    }
    return null;
  }

  get size(): number {
    return this.ids.size;
  }
}
