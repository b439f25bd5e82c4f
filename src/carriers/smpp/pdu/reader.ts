/**
 * Turns a TCP byte stream into PDUs. Chunks are held as a list and joined only once a whole
 * PDU is there, so a large PDU trickling in byte by byte costs one copy, not one per chunk;
 * what is held never exceeds one PDU of at most `maxLength` plus the chunk that completed it.
 */
import { decodePdu, type DecodeResult } from './decode.js';
import { HEADER_LENGTH } from './encode.js';

/** Our submits stay far below this; a larger command_length means a broken or hostile peer. */
export const DEFAULT_MAX_PDU_LENGTH = 64 * 1024;

export class PduReader {
  private chunks: Buffer[] = [];
  private held = 0;
  private failed = false;

  constructor(private readonly maxLength: number = DEFAULT_MAX_PDU_LENGTH) {}

  /**
   * Feeds one chunk; returns every PDU it completed, in order. After a `fatal` result the
   * stream is out of step for good: the reader drops all further input and the caller closes.
   */
  feed(chunk: Buffer): DecodeResult[] {
    const results: DecodeResult[] = [];
    if (this.failed) return results;
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.held += chunk.length;
    }
    while (this.held >= 4) {
      const commandLength = this.peek(4).readUInt32BE(0);
      if (commandLength < HEADER_LENGTH) {
        results.push(
          this.fail({ kind: 'fatal', commandLength, reason: `command_length ${commandLength} < 16` }),
        );
        break;
      }
      if (commandLength > this.maxLength) {
        // Wait for the whole header so the caller can nack with the sequence number before closing.
        if (this.held < HEADER_LENGTH) break;
        const header = this.peek(HEADER_LENGTH);
        const reason = `command_length ${commandLength} > ${this.maxLength}`;
        const [commandId, sequenceNumber] = [header.readUInt32BE(4), header.readUInt32BE(12)];
        results.push(this.fail({ kind: 'fatal', commandLength, reason, commandId, sequenceNumber }));
        break;
      }
      if (this.held < commandLength) break;
      results.push(decodePdu(this.take(commandLength)));
    }
    return results;
  }

  /** Octets held while waiting for the rest of a PDU. */
  get buffered(): number {
    return this.held;
  }

  private fail(result: DecodeResult): DecodeResult {
    this.failed = true;
    this.chunks = [];
    this.held = 0;
    return result;
  }

  /** The first `n` held octets as one buffer (n <= held), joining chunks only when needed. */
  private peek(n: number): Buffer {
    const first = this.chunks[0] as Buffer;
    if (first.length >= n) return first;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private take(n: number): Buffer {
    const head = this.peek(n);
    const rest = head.subarray(n);
    this.chunks[0] = rest;
    if (rest.length === 0) this.chunks.shift();
    this.held -= n;
    return head.subarray(0, n);
  }
}
