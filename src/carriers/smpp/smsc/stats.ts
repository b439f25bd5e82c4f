/** What the simulator saw, for tests and the operator: every submit, and delivery counts. */
import { commandStatusName, decodeText, getTlv, parseConcat, readUdh, type Pdu } from '../pdu/index.js';

export interface SubmitRecord {
  readonly command: 'submit_sm' | 'data_sm';
  readonly systemId: string;
  readonly source: string;
  readonly destination: string;
  readonly dataCoding: number;
  readonly registeredDelivery: number;
  /** This part's text, decoded by its data_coding (UDH removed). */
  readonly text: string;
  readonly concat: { readonly ref: number; readonly total: number; readonly seq: number } | null;
  /** The command_status we answered with, by name. */
  readonly status: string;
  /** As sent in the response; '' when refused. */
  readonly messageId: string;
  readonly at: number;
}

export class SmscStats {
  readonly submits: SubmitRecord[] = [];
  binds = 0;
  unbinds = 0;
  /** deliver_sm (receipts and MO) the ESME answered with ESME_ROK. */
  deliveredOk = 0;
  /** deliver_sm the ESME answered with an error; they are sent again. */
  deliveredNacked = 0;
  /** Refused with ESME_RTHROTTLED (window full or over the rate). */
  throttled = 0;

  record(
    systemId: string,
    pdu: Extract<Pdu, { command: 'submit_sm' | 'data_sm' }>,
    status: number,
    messageId: string,
  ): SubmitRecord {
    const concat = parseConcat(pdu);
    const payload = getTlv(pdu.tlvs, 'message_payload');
    const octets = payload ?? ('shortMessage' in pdu ? pdu.shortMessage : Buffer.alloc(0));
    const body = concat?.body ?? ((pdu.esmClass & 0x40) !== 0 ? (readUdh(octets)?.body ?? octets) : octets);
    const record: SubmitRecord = {
      command: pdu.command,
      systemId,
      source: pdu.sourceAddr,
      destination: pdu.destinationAddr,
      dataCoding: pdu.dataCoding,
      registeredDelivery: pdu.registeredDelivery,
      text: decodeText(body, pdu.dataCoding).text,
      concat: concat && { ref: concat.ref, total: concat.total, seq: concat.seq },
      status: commandStatusName(status),
      messageId,
      at: Date.now(),
    };
    this.submits.push(record);
    return record;
  }

  /** submit_sm / data_sm PDUs to this destination (digits as sent, without '+'); parts count one each. */
  submitCount(destination: string): number {
    const addr = destination.replace(/^\+/, '');
    return this.submits.filter((s) => s.destination === addr).length;
  }

  /** Whole texts sent to a destination, parts joined by their concatenation reference. */
  texts(destination: string): string[] {
    const addr = destination.replace(/^\+/, '');
    const messages = new Map<string, SubmitRecord[]>();
    for (const [i, s] of this.submits.entries()) {
      if (s.destination !== addr) continue;
      const key = s.concat ? `${s.source}/${s.concat.ref}/${s.concat.total}` : `single/${i}`;
      messages.set(key, [...(messages.get(key) ?? []), s]);
    }
    return [...messages.values()].map((parts) =>
      parts
        .sort((a, b) => (a.concat?.seq ?? 0) - (b.concat?.seq ?? 0))
        .map((p) => p.text)
        .join(''),
    );
  }
}
