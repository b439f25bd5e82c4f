/**
 * One framed PDU → a typed PDU or a result saying what is wrong with it. Never throws: the
 * octets come from a peer, and a bad PDU must cost one generic_nack, not the process.
 */
import { BODIES, type BodySpec } from './bodies.js';
import { commandName, isResponseId } from './commands.js';
import { HEADER_LENGTH } from './encode.js';
import { Cursor, MalformedPdu } from './octets.js';
import { blankPdu, type Pdu } from './pdu.js';
import { CommandStatus } from './status.js';
import { readTlvs } from './tlv.js';

export type DecodeResult =
  | { kind: 'pdu'; pdu: Pdu }
  /**
   * The frame was whole but its content is not a PDU we can read. The link is still in step;
   * answer a request with generic_nack(`nackStatus`, `sequenceNumber`).
   */
  | { kind: 'invalid'; commandId: number; sequenceNumber: number; nackStatus: number; reason: string }
  /** The framing itself is broken: nothing after this can be trusted, close the link. */
  | { kind: 'fatal'; commandLength: number; reason: string; commandId?: number; sequenceNumber?: number };

/** `frame` must be exactly one PDU, header included. */
export function decodePdu(frame: Buffer): DecodeResult {
  return decodeAt(frame, 0, frame.length);
}

/** The PDU framed at `start` with `length` octets, read where it lies in `buf` (a received chunk). */
export function decodeAt(buf: Buffer, start: number, length: number): DecodeResult {
  if (length < HEADER_LENGTH) {
    return {
      kind: 'fatal',
      commandLength: length,
      reason: `${length} octets is shorter than a header`,
    };
  }
  const commandLength = buf.readUInt32BE(start);
  const commandId = buf.readUInt32BE(start + 4);
  const commandStatus = buf.readUInt32BE(start + 8);
  const sequenceNumber = buf.readUInt32BE(start + 12);
  if (commandLength !== length) {
    const reason = `command_length ${commandLength} but the frame has ${length} octets`;
    return { kind: 'fatal', commandLength, reason, commandId, sequenceNumber };
  }
  const command = commandName(commandId);
  if (command === undefined) {
    const reason = `unknown command_id 0x${commandId.toString(16).padStart(8, '0')}`;
    return { kind: 'invalid', commandId, sequenceNumber, nackStatus: CommandStatus.ESME_RINVCMDID, reason };
  }
  const pdu = blankPdu(command);
  pdu.commandStatus = commandStatus;
  pdu.sequenceNumber = sequenceNumber;
  const spec = BODIES[command] as BodySpec;
  const body = new Cursor(buf, start + HEADER_LENGTH, start + length);
  try {
    // A response with a non-zero status may leave its body out (3.4 §4.1.2, §4.4.2).
    const bodyless = isResponseId(commandId) && body.remaining === 0;
    for (const [name, field] of spec) pdu[name] = bodyless ? field.initial : field.read(body, name);
    const tlvs = readTlvs(body);
    if (tlvs.length > 0) pdu.tlvs = tlvs;
  } catch (err) {
    if (!(err instanceof MalformedPdu)) throw err;
    return {
      kind: 'invalid',
      commandId,
      sequenceNumber,
      nackStatus: err.status,
      reason: `${command}: ${err.message}`,
    };
  }
  return { kind: 'pdu', pdu: pdu as Pdu };
}
