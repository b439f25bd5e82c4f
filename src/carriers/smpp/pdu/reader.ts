/**
 * Turns a TCP byte stream into PDUs. Chunks are held as a list and joined only once a whole
 * PDU is there, so a large PDU trickling in byte by byte costs one copy, not one per chunk;
 * what is held never exceeds one PDU of at most `maxLength` plus the chunk that completed it.
 */
import { decodeAt, type DecodeResult } from './decode.js';
import { HEADER_LENGTH } from './encode.js';

/** Our submits stay far below this; a larger command_length means a broken or hostile peer. */
export const DEFAULT_MAX_PDU_LENGTH = 64 * 1024;

export class PduReader {
  private chunks: Buffer[] = [];
  /** Where the unread octets of chunks[0] begin: PDUs are decoded where they lie, not sliced off. */
  private offset = 0;
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
      const commandLength = this.contiguous(4).readUInt32BE(this.offset);
      if (commandLength < HEADER_LENGTH) {
        results.push(
          this.fail({ kind: 'fatal', commandLength, reason: `command_length ${commandLength} < 16` }),
        );
        break;
      }
      if (commandLength > this.maxLength) {
        // Wait for the whole header so the caller can nack with the sequence number before closing.
        if (this.held < HEADER_LENGTH) break;
        const header = this.contiguous(HEADER_LENGTH);
        const reason = `command_length ${commandLength} > ${this.maxLength}`;
        const commandId = header.readUInt32BE(this.offset + 4);
        const sequenceNumber = header.readUInt32BE(this.offset + 12);
        results.push(this.fail({ kind: 'fatal', commandLength, reason, commandId, sequenceNumber }));
        break;
      }
      if (this.held < commandLength) break;
      results.push(decodeAt(this.contiguous(commandLength), this.offset, commandLength));
      this.consume(commandLength);
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
    this.offset = 0;
    this.held = 0;
    return result;
  }

  /**
   * The first chunk, once it holds the next `n` unread octets (n <= held) from `offset`;
   * the held chunks are joined only when they do not.
   */
  private contiguous(n: number): Buffer {
    const first = this.chunks[0] as Buffer;
    if (first.length - this.offset >= n) return first;
    const joined = Buffer.concat([first.subarray(this.offset), ...this.chunks.slice(1)]);
    this.chunks = [joined];
    this.offset = 0;
    return joined;
  }

  private consume(n: number): void {
    this.offset += n;
    this.held -= n;
    if (this.offset === (this.chunks[0] as Buffer).length) {
      this.chunks.shift();
      this.offset = 0;
    }
  }
}
