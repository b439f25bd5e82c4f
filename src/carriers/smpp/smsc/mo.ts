/** An injected handset message → the deliver_sm(s) an SMSC sends for it. */
import { chooseDataCoding, makePdu, splitForSubmit, type PduOf } from '../pdu/index.js';

function address(number: string): { ton: number; npi: number; addr: string } {
  if (/^\+\d+$/.test(number)) return { ton: 1, npi: 1, addr: number.slice(1) };
  if (/^\d+$/.test(number)) return { ton: 0, npi: 1, addr: number };
  return { ton: 5, npi: 0, addr: number };
}

/** Long text goes as UDH-concatenated parts (8-bit reference), as handsets send it. */
export function moPdus(from: string, to: string, text: string, ref: number): PduOf<'deliver_sm'>[] {
  const dataCoding = chooseDataCoding(text);
  const split = splitForSubmit(text, dataCoding, 'udh8', ref);
  if (split.kind !== 'ok') throw new RangeError(`cannot send this text as an MO: ${split.kind}`);
  const source = address(from);
  const dest = address(to);
  return split.parts.map((part) =>
    makePdu('deliver_sm', {
      sequenceNumber: 0,
      sourceAddrTon: source.ton,
      sourceAddrNpi: source.npi,
      sourceAddr: source.addr,
      destAddrTon: dest.ton,
      destAddrNpi: dest.npi,
      destinationAddr: dest.addr,
      esmClass: part.esmClass,
      dataCoding,
      shortMessage: part.shortMessage,
    }),
  );
}
