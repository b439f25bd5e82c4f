/**
 * Message ids as the simulator issues them. Real SMSCs disagree on the form (hex in the
 * submit_sm_resp and decimal in the receipt is common), so both forms are settings: the
 * gateway's id matching must cope with either combination.
 */
import { randomInt } from 'node:crypto';

export type IdFormat = 'hex' | 'decimal';

export class MessageIds {
  // A random start per simulator, so ids from a restarted simulator do not collide with old ones.
  private next = randomInt(0x10000000, 0x7fffffff) * 0x100;

  issue(): number {
    return this.next++;
  }
}

export function formatId(id: number, format: IdFormat): string {
  return format === 'hex' ? id.toString(16) : id.toString(10);
}
