/** The deliver_sm an SMSC sends as a delivery receipt (SMPP 3.4 Appendix B, §5.3.2.12/35). */
import { EsmClass, makePdu, tlv, type PduOf } from '../pdu/index.js';
import type { SimulatedOutcome } from './outcomes.js';

export interface ReceiptFacts {
  readonly messageId: string;
  readonly outcome: Extract<SimulatedOutcome, { kind: 'accept' }>;
  readonly submittedAt: Date;
  readonly doneAt: Date;
  /** The submit's addresses; the receipt goes back from its destination to its source. */
  readonly source: { readonly ton: number; readonly npi: number; readonly addr: string };
  readonly destination: { readonly ton: number; readonly npi: number; readonly addr: string };
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** YYMMDDhhmm in UTC, as the `submit date:` / `done date:` fields write it. */
function receiptDate(d: Date): string {
  return (
    two(d.getUTCFullYear() % 100) +
    two(d.getUTCMonth() + 1) +
    two(d.getUTCDate()) +
    two(d.getUTCHours()) +
    two(d.getUTCMinutes())
  );
}

export function receiptText(f: ReceiptFacts): string {
  const dlvrd = f.outcome.stat === 'DELIVRD' ? '001' : '000';
  return (
    `id:${f.messageId} sub:001 dlvrd:${dlvrd} submit date:${receiptDate(f.submittedAt)} ` +
    `done date:${receiptDate(f.doneAt)} stat:${f.outcome.stat} err:${f.outcome.err}`
  );
}

export function receiptPdu(f: ReceiptFacts): PduOf<'deliver_sm'> {
  return makePdu('deliver_sm', {
    sequenceNumber: 0,
    sourceAddrTon: f.destination.ton,
    sourceAddrNpi: f.destination.npi,
    sourceAddr: f.destination.addr,
    destAddrTon: f.source.ton,
    destAddrNpi: f.source.npi,
    destinationAddr: f.source.addr,
    esmClass: EsmClass.DeliveryReceipt,
    shortMessage: Buffer.from(receiptText(f), 'latin1'),
    tlvs: [tlv('receipted_message_id', f.messageId), tlv('message_state', f.outcome.state)],
  });
}
