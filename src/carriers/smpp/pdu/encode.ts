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
  return encodeNumbered(pdu, pdu.sequenceNumber);
}

/** encodePdu with the sequence number given apart, so a link need not copy a request to number it. */
export function encodeNumbered(pdu: Unnumbered, sequenceNumber: number): Buffer {
  const w = new Writer();
  w.skip(HEADER_LENGTH);
  const fields = pdu as unknown as Record<string, unknown>;
  for (const [name, field] of BODIES[pdu.command] as BodySpec) field.write(w, fields[name], name);
  if (pdu.tlvs) writeTlvs(w, pdu.tlvs);
  const out = w.toBuffer();
  out.writeUInt32BE(out.length, 0);
  out.writeUInt32BE(CommandId[pdu.command], 4);
  out.writeUInt32BE(pdu.commandStatus, 8);
  out.writeUInt32BE(sequenceNumber, 12);
  return out;
}
