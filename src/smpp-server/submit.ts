/**
 * submit_sm, data_sm and submit_multi → the send use case, as the bound account (decisions
 * §21): the same rules as POST /sms/message (senders, credits, parts, suppression). Long
 * messages arrive in parts (UDH with an 8- or 16-bit reference, SAR TLVs) and are put back
 * together into one message; message_payload carries a long one whole.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { SendDeps } from '../app/send-message.js';
import { sendMessage } from '../app/send-message.js';
import { Reassembly, type Assembly, type PartKey } from '../carriers/smpp/connector/reassembly.js';
import { decodeInbound, userData } from '../carriers/smpp/connector/text-coding.js';
import {
  CommandStatus,
  parseConcat,
  type DestAddress,
  type PduOf,
  type UnsuccessSme,
} from '../carriers/smpp/pdu/index.js';
import { normaliseMsisdn } from '../domain/msisdn.js';
import type { Account } from '../store/port.js';
import { parseSmppTime } from './smpp-time.js';
import { statusOfRefusal } from './submit-status.js';

export type SubmitPdu = PduOf<'submit_sm'> | PduOf<'data_sm'> | PduOf<'submit_multi'>;

export type SubmitAnswer =
  | { readonly kind: 'accepted'; readonly messageId: string; readonly unsuccess: UnsuccessSme[] }
  | { readonly kind: 'refused'; readonly status: number; readonly unsuccess?: UnsuccessSme[] };

/** The body limit of POST /sms/message (interface.md). */
const MAX_BODY = 2000;
/** Long messages being put together at once, across all binds of this node. */
const MAX_OPEN_MESSAGES = 10_000;

interface PartMeta {
  readonly pdu: SubmitPdu;
}

export interface Submitter {
  submit(account: Account, pdu: SubmitPdu): Promise<SubmitAnswer>;
  /** Gives up the messages still waiting for parts. */
  close(): void;
}

export function createSubmitter(deps: SendDeps, logger: Logger, reassemblyMs: number): Submitter {
  /** Provisional ids given to the parts of each open message so far, by its key. */
  const partIds = new Map<string, string[]>();
  const reassembly = new Reassembly<PartMeta>(reassemblyMs, MAX_OPEN_MESSAGES, (a) => {
    partIds.delete(keyId(a.key));
    logger.warn(
      { parts: a.parts.length, of: a.key.total, source: a.meta.pdu.sourceAddr },
      'long submit given up: parts missing after the reassembly timeout',
    );
  });
  // Unique across restarts and nodes: a client keys its receipts by these ids.
  const idBase = `p${randomBytes(5).toString('hex')}-`;
  let provisional = 0;

  const accept = async (
    account: Account,
    pdu: SubmitPdu,
    octets: Buffer,
    earlierParts: readonly string[] = [],
  ): Promise<SubmitAnswer> => {
    const now = deps.now();
    const { to, unsuccess } = destinations(pdu);
    if (to.length === 0) return { kind: 'refused', status: CommandStatus.ESME_RINVDSTADR, unsuccess };
    const decoded = decodeInbound(octets, pdu.dataCoding);
    if (decoded.problem?.kind === 'unsupported-coding' || decoded.problem?.kind === 'invalid-octet')
      return { kind: 'refused', status: CommandStatus.ESME_RSUBMITFAIL };
    const body = decoded.text;
    if (body.length === 0 || body.length > MAX_BODY)
      return { kind: 'refused', status: CommandStatus.ESME_RINVMSGLEN };
    const times = pdu.command === 'data_sm' ? null : timesOf(pdu, now);
    if (times?.kind === 'invalid') return { kind: 'refused', status: times.status };
    try {
      const result = await sendMessage(
        deps,
        account,
        {
          to,
          from: pdu.sourceAddr,
          body,
          ...(times?.kind === 'ok' &&
            times.sendAt !== undefined && { send_at: Math.floor(times.sendAt / 1000) }),
          ...(times?.kind === 'ok' &&
            times.expiresAt !== undefined && { expires_at: Math.ceil(times.expiresAt / 1000) }),
          // Receipts go back over SMPP (registered_delivery), not as webhooks.
          delivery_report: null,
        },
        undefined,
        { smppRegisteredDelivery: pdu.registeredDelivery & 0x03, smppPartIds: earlierParts },
      );
      if (result.kind !== 'created') return { kind: 'refused', status: CommandStatus.ESME_RINVMSGLEN };
      return { kind: 'accepted', messageId: String(result.messageID), unsuccess };
    } catch (error) {
      const status = statusOfRefusal(error);
      if (status === null) throw error;
      return { kind: 'refused', status, unsuccess };
    }
  };

  return {
    async submit(account, pdu) {
      const part = parseConcat(pdu);
      if (part === null || part.total === 1) return accept(account, pdu, part?.body ?? userData(pdu));
      const key: PartKey = {
        from: `${account.id}|${pdu.sourceAddr}`,
        to: destinationKey(pdu),
        ref: part.ref,
        total: part.total,
      };
      const whole = reassembly.add(key, part.seq, part.body, { pdu });
      const id = keyId(key);
      if (whole === null) {
        // Answered at once: a client whose window is smaller than the part count would
        // otherwise wait for answers that wait for its next part. The part gets a receipt of
        // its own under this id when the message's comes.
        provisional = (provisional + 1) % 1e12;
        const messageId = `${idBase}${provisional}`;
        partIds.set(id, [...(partIds.get(id) ?? []), messageId]);
        return { kind: 'accepted', messageId, unsuccess: [] };
      }
      try {
        return await accept(account, whole.meta.pdu, joined(whole), partIds.get(id) ?? []);
      } finally {
        partIds.delete(id);
        reassembly.finish(key, true);
      }
    },
    close: () => reassembly.flush(),
  };
}

function keyId(key: PartKey): string {
  return JSON.stringify([key.from, key.to, key.ref, key.total]);
}

function joined(a: Assembly<PartMeta>): Buffer {
  return Buffer.concat(a.parts.map((p) => p.octets));
}

function destinationKey(pdu: SubmitPdu): string {
  if (pdu.command !== 'submit_multi') return pdu.destinationAddr;
  return pdu.destAddresses.map((d) => (d.kind === 'sme' ? d.addr : `dl:${d.name}`)).join(',');
}

/** The recipients a submit names; a bad one of a submit_multi is reported, not fatal. */
function destinations(pdu: SubmitPdu): { to: string[]; unsuccess: UnsuccessSme[] } {
  const dests: DestAddress[] =
    pdu.command === 'submit_multi'
      ? pdu.destAddresses
      : [{ kind: 'sme', ton: pdu.destAddrTon, npi: pdu.destAddrNpi, addr: pdu.destinationAddr }];
  const to: string[] = [];
  const unsuccess: UnsuccessSme[] = [];
  for (const d of dests) {
    if (d.kind === 'list') {
      unsuccess.push({ ton: 0, npi: 0, addr: d.name, errorStatusCode: CommandStatus.ESME_RINVDLNAME });
    } else if (normaliseMsisdn(d.addr) === null) {
      unsuccess.push({
        ton: d.ton,
        npi: d.npi,
        addr: d.addr,
        errorStatusCode: CommandStatus.ESME_RINVDSTADR,
      });
    } else {
      to.push(d.addr);
    }
  }
  return { to, unsuccess };
}

type Times =
  | { readonly kind: 'ok'; readonly sendAt?: number; readonly expiresAt?: number }
  | { readonly kind: 'invalid'; readonly status: number };

/** schedule_delivery_time → send_at, validity_period → expires_at. */
function timesOf(pdu: PduOf<'submit_sm'> | PduOf<'submit_multi'>, now: number): Times {
  const schedule = parseSmppTime(pdu.scheduleDeliveryTime, now);
  if (schedule.kind === 'invalid') return { kind: 'invalid', status: CommandStatus.ESME_RINVSCHED };
  const validity = parseSmppTime(pdu.validityPeriod, now);
  if (validity.kind === 'invalid') return { kind: 'invalid', status: CommandStatus.ESME_RINVEXPIRY };
  const sendAt = schedule.kind === 'at' && schedule.ms > now ? schedule.ms : undefined;
  const expiresAt = validity.kind === 'at' ? validity.ms : undefined;
  if (expiresAt !== undefined && expiresAt <= (sendAt ?? now))
    return { kind: 'invalid', status: CommandStatus.ESME_RINVEXPIRY };
  return {
    kind: 'ok',
    ...(sendAt !== undefined && { sendAt }),
    ...(expiresAt !== undefined && { expiresAt }),
  };
}
