import { BODIES, type BodySpec } from './bodies.js';
import { CommandId } from './commands.js';
import { Writer } from './octets.js';
import type { Pdu, Unnumbered } from './pdu.js';
import { writeTlvs } from './tlv.js';

export const HEADER_LENGTH = 16;

/**
 * PDU → octets. Throws PduEncodeError when a field breaks the layout (too long, out of range):
 * that is a bug in the caller, and sending a truncated field instead would be worse. A header
 * value outside 0..2^32-1 throws Buffer's RangeError for the same reason.
 */
export function encodePdu(pdu: Pdu): Buffer {
  const w = new Writer();
  encodeInto(w, pdu, pdu.sequenceNumber);
  return w.toBuffer();
}

/**
 * Appends one PDU to `w`, which may already hold others: a link collects a turn's PDUs in one
 * buffer. When a field breaks the layout, `w` is left as it was and the error thrown.
 */
export function encodeInto(w: Writer, pdu: Unnumbered, sequenceNumber: number): void {
  const start = w.length;
  try {
    w.skip(HEADER_LENGTH);
    const fields = pdu as unknown as Record<string, unknown>;
    for (const [name, field] of BODIES[pdu.command] as BodySpec) field.write(w, fields[name], name);
    if (pdu.tlvs) writeTlvs(w, pdu.tlvs);
    w.u32At(start, w.length - start);
    w.u32At(start + 4, CommandId[pdu.command]);
    w.u32At(start + 8, pdu.commandStatus);
    w.u32At(start + 12, sequenceNumber);
  } catch (err) {
    w.truncate(start);
    throw err;
  }
}
