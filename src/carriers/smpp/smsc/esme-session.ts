/**
 * One ESME connection to the simulator: bind, then submit_sm / data_sm answered by the
 * outcome table, with the simulator's window and rate applied per session.
 */
import type { Socket } from 'node:net';
import { CommandStatus, makePdu, type Pdu, type PduOf } from '../pdu/index.js';
import { Link } from '../session/index.js';
import type { DeliveryQueue, Receiver } from './delivery-queue.js';
import { formatId, type MessageIds } from './message-ids.js';
import type { ResolvedSimulatorOptions } from './options.js';
import { outcomeFor, wantsReceipt, type SimulatedOutcome } from './outcomes.js';
import { receiptPdu } from './receipt.js';
import type { SmscStats } from './stats.js';

type BindPdu = PduOf<'bind_transceiver'> | PduOf<'bind_transmitter'> | PduOf<'bind_receiver'>;
type SubmitPdu = PduOf<'submit_sm'> | PduOf<'data_sm'>;

/** What a receipt needs to know about the submit it reports on. */
interface Accepted {
  readonly id: number;
  readonly outcome: Extract<SimulatedOutcome, { kind: 'accept' }>;
  readonly at: number;
  readonly submitter: string;
}

export interface SimulatorParts {
  readonly options: ResolvedSimulatorOptions;
  readonly stats: SmscStats;
  readonly ids: MessageIds;
  readonly deliveries: DeliveryQueue;
}

export function serveEsme(socket: Socket, parts: SimulatorParts): Link {
  const { options, stats, deliveries } = parts;
  const logger = options.logger.child({ peer: `${socket.remotePort}` });
  let bound: { command: BindPdu['command']; systemId: string } | null = null;
  let receiver: Receiver | null = null;
  let unanswered = 0;
  const recent: number[] = [];

  const link: Link = new Link(socket, {
    logger,
    enquireLinkMs: 0,
    responseTimeoutMs: options.deliverTimeoutMs,
    onUnbind: () => stats.unbinds++,
    onRequest: (pdu) => {
      if (pdu.command.startsWith('bind_')) return onBind(pdu as BindPdu);
      if (pdu.command === 'submit_sm' || pdu.command === 'data_sm') return onSubmit(pdu);
      refuse(pdu, bound ? CommandStatus.ESME_RINVCMDID : CommandStatus.ESME_RINVBNDSTS);
    },
  });
  void link.closed.then(() => receiver && deliveries.detach(receiver));

  const refuse = (pdu: Pdu, commandStatus: number) =>
    link.send(makePdu('generic_nack', { sequenceNumber: pdu.sequenceNumber, commandStatus }));

  const respond = (pdu: SubmitPdu, commandStatus: number, messageId: string) => {
    const command = pdu.command === 'submit_sm' ? 'submit_sm_resp' : 'data_sm_resp';
    link.send(makePdu(command, { sequenceNumber: pdu.sequenceNumber, commandStatus, messageId }));
  };

  const onBind = (pdu: BindPdu) => {
    const answer = (commandStatus: number) =>
      link.send(
        makePdu(`${pdu.command}_resp`, {
          sequenceNumber: pdu.sequenceNumber,
          commandStatus,
          systemId: commandStatus === 0 ? options.smscSystemId : '',
        }),
      );
    if (bound) return answer(CommandStatus.ESME_RALYBND);
    if (options.systemId !== undefined && pdu.systemId !== options.systemId)
      return answer(CommandStatus.ESME_RINVSYSID);
    if (options.password !== undefined && pdu.password !== options.password)
      return answer(CommandStatus.ESME_RINVPASWD);
    bound = { command: pdu.command, systemId: pdu.systemId };
    stats.binds++;
    answer(CommandStatus.ESME_ROK);
    logger.info({ systemId: pdu.systemId, bind: pdu.command }, 'esme bound');
    if (pdu.command !== 'bind_transmitter') deliveries.attach((receiver = { link, systemId: pdu.systemId }));
  };

  /** ESME_RTHROTTLED when the window is full or the last second already had `throughput` submits. */
  const overLimit = (now: number): boolean => {
    while (recent.length > 0 && recent[0]! <= now - 1000) recent.shift();
    if (options.window > 0 && unanswered >= options.window) return true;
    return options.throughput > 0 && recent.length >= options.throughput;
  };

  /** The submit_sm_resp, now or after responseDelayMs (while it waits, it fills the window). */
  const answer = (pdu: SubmitPdu, commandStatus: number, messageId: string) => {
    if (options.responseDelayMs <= 0) return respond(pdu, commandStatus, messageId);
    unanswered++;
    deliveries.later(() => {
      unanswered--;
      respond(pdu, commandStatus, messageId);
    }, options.responseDelayMs);
  };

  const sendReceipt = (pdu: SubmitPdu, accepted: Accepted) =>
    void deliveries.add(
      receiptPdu({
        messageId: formatId(accepted.id, options.receiptIdFormat),
        outcome: accepted.outcome,
        submittedAt: new Date(accepted.at),
        doneAt: new Date(),
        source: { ton: pdu.sourceAddrTon, npi: pdu.sourceAddrNpi, addr: pdu.sourceAddr },
        destination: { ton: pdu.destAddrTon, npi: pdu.destAddrNpi, addr: pdu.destinationAddr },
      }),
      { link, systemId: accepted.submitter },
    );

  const onSubmit = (pdu: SubmitPdu) => {
    if (!bound || bound.command === 'bind_receiver') {
      return respond(pdu, CommandStatus.ESME_RINVBNDSTS, '');
    }
    const now = Date.now();
    if (overLimit(now)) {
      stats.throttled++;
      stats.record(bound.systemId, pdu, CommandStatus.ESME_RTHROTTLED, '');
      return respond(pdu, CommandStatus.ESME_RTHROTTLED, '');
    }
    if (options.throughput > 0) recent.push(now);
    const outcome = outcomeFor(pdu.destinationAddr);
    if (outcome.kind === 'reject') {
      stats.record(bound.systemId, pdu, outcome.status, '');
      return answer(pdu, outcome.status, '');
    }
    const accepted: Accepted = { id: parts.ids.issue(), outcome, at: now, submitter: bound.systemId };
    const messageId = formatId(accepted.id, options.idFormat);
    stats.record(bound.systemId, pdu, CommandStatus.ESME_ROK, messageId);
    if (wantsReceipt(pdu.registeredDelivery, outcome.stat)) {
      if (options.receiptBeforeResponse) sendReceipt(pdu, accepted);
      else
        deliveries.later(() => sendReceipt(pdu, accepted), options.responseDelayMs + options.receiptDelayMs);
    }
    answer(pdu, CommandStatus.ESME_ROK, messageId);
  };

  return link;
}
