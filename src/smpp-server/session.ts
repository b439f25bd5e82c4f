/**
 * One customer connection to the SMPP server: bind with the account's SMPP credentials, then
 * submits, queries and cancels as that account, and (receiver, transceiver) deliver_sm from
 * the delivery queue. The Link answers enquire_link and unbind, and generic_nack on PDUs it
 * cannot read; what a request means is decided here.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { verifySmppPassword } from '../app/smpp-users.js';
import { boundedCache } from '../bounded-cache.js';
import { CommandStatus, encodePdu, makePdu, tlv, type Pdu, type PduOf } from '../carriers/smpp/pdu/index.js';
import { Link } from '../carriers/smpp/session/index.js';
import type { Account, Store } from '../store/port.js';
import type { SmppBindMode, SmppUser } from '../store/smpp/index.js';
import { querySmAnswer } from './query.js';
import type { SubmitAnswer, SubmitPdu, Submitter } from './submit.js';

type BindPdu = PduOf<'bind_transmitter'> | PduOf<'bind_receiver'> | PduOf<'bind_transceiver'>;

const MODE_OF: Readonly<Record<BindPdu['command'], SmppBindMode>> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

/** The system_id this server answers binds with. */
export const SERVER_SYSTEM_ID = 'smsgw';
/** A connection that has not bound within this is closed. */
const BIND_TIMEOUT_MS = 30_000;
/** How long the account read for a submit is reused (credits are checked in the database anyway). */
const ACCOUNT_TTL_MS = 1000;
/** Submits remembered per bind to recognise a retransmission. */
const RECENT_SUBMITS = 1024;
/** How long unbind and deliver_sm wait for their responses. */
export const RESPONSE_TIMEOUT_MS = 10_000;

export interface SessionDeps {
  readonly store: Store;
  readonly node: string;
  readonly now: () => number;
  readonly logger: Logger;
  readonly submitter: Submitter;
  readonly idleMs: number;
  /** A bind that can receive deliver_sm became ready, or went. */
  readonly onReceiver: (session: CustomerSession, ready: boolean) => void;
}

export interface CustomerSession {
  readonly link: Link;
  readonly accountId: number;
  readonly window: number;
  /** deliver_sm sent and not yet answered. */
  delivering: number;
}

export function serveCustomer(socket: Socket, deps: SessionDeps): Link {
  const logger = deps.logger.child({ peer: `${socket.remoteAddress}:${socket.remotePort}` });
  let state: 'open' | 'binding' | 'bound' | 'closing' = 'open';
  let bound: { user: SmppUser; mode: SmppBindMode; bindId: string; session: CustomerSession } | null = null;
  let account: { value: Account; readAt: number } | null = null;
  let inFlight = 0;
  const recent = boundedCache<number, { fingerprint: string; answer: Promise<SubmitAnswer> }>(RECENT_SUBMITS);

  const link: Link = new Link(socket, {
    logger,
    enquireLinkMs: 0,
    responseTimeoutMs: RESPONSE_TIMEOUT_MS,
    onRequest: (pdu) => void onRequest(pdu),
    onUnbind: () => (state = 'closing'),
  });

  // Idle binds are closed (decisions §21): any PDU either way resets the clock.
  const bindTimer = setTimeout(() => state === 'open' && link.destroy('no bind in time'), BIND_TIMEOUT_MS);
  socket.setTimeout(deps.idleMs);
  socket.on('timeout', () => {
    if (state !== 'bound') return link.destroy('idle');
    logger.info('idle bind: unbinding');
    state = 'closing';
    void link
      .request({ command: 'unbind', commandStatus: 0 }, RESPONSE_TIMEOUT_MS)
      .then(() => link.end('idle'));
  });

  void link.closed.then(async (reason) => {
    clearTimeout(bindTimer);
    if (!bound) return;
    logger.info({ systemId: bound.user.systemId, reason }, 'customer bind closed');
    if (bound.mode !== 'transmitter') deps.onReceiver(bound.session, false);
    await deps.store.smpp.binds
      .remove(bound.bindId)
      .catch((err: unknown) => logger.warn({ err }, 'could not remove the bind row; it goes with this node'));
  });

  const answer = (pdu: Pdu, commandStatus: number, fields: Record<string, unknown> = {}) => {
    const command = `${pdu.command}_resp` as Pdu['command'];
    try {
      link.send(makePdu(command, { sequenceNumber: pdu.sequenceNumber, commandStatus, ...fields }) as Pdu);
    } catch (err) {
      // A field that does not fit (a message id of ours never should): the status still goes.
      logger.error({ err, command }, 'response did not encode');
      link.send(
        makePdu('generic_nack', {
          sequenceNumber: pdu.sequenceNumber,
          commandStatus: CommandStatus.ESME_RSYSERR,
        }),
      );
    }
  };

  /**
   * The bound account, read again at most every ACCOUNT_TTL_MS, with its credentials: once
   * they are removed or changed (DELETE or PUT …/smpp) the bind ends at its next request.
   */
  const currentAccount = async (): Promise<Account | 'revoked' | null> => {
    const now = deps.now();
    if (account && now - account.readAt < ACCOUNT_TTL_MS) return account.value;
    const { user } = bound!;
    const [value, current] = await Promise.all([
      deps.store.accounts.get(user.accountId),
      deps.store.smpp.users.get(user.accountId),
    ]);
    if (!current || current.systemId !== user.systemId || current.passwordHash !== user.passwordHash)
      return 'revoked';
    account = value ? { value, readAt: now } : null;
    return value;
  };

  async function onRequest(pdu: Pdu): Promise<void> {
    switch (pdu.command) {
      case 'bind_transmitter':
      case 'bind_receiver':
      case 'bind_transceiver':
        return onBind(pdu);
      case 'submit_sm':
      case 'data_sm':
      case 'submit_multi':
      case 'query_sm':
      case 'cancel_sm':
        return onMessageRequest(pdu);
      default:
        // deliver_sm, outbind …: not something a customer sends to us.
        link.send(
          makePdu('generic_nack', {
            sequenceNumber: pdu.sequenceNumber,
            commandStatus: CommandStatus.ESME_RINVCMDID,
          }),
        );
    }
  }

  async function onBind(pdu: BindPdu): Promise<void> {
    if (state !== 'open') return answer(pdu, CommandStatus.ESME_RALYBND, { systemId: '' });
    state = 'binding';
    const refuse = (why: string) => {
      logger.info({ systemId: pdu.systemId, why }, 'bind refused');
      answer(pdu, CommandStatus.ESME_RBINDFAIL, { systemId: '' });
      state = 'closing';
      void link.end('bind refused');
    };
    try {
      const user = await deps.store.smpp.users.findBySystemId(pdu.systemId);
      // The same answer for an unknown system_id and a wrong password: nothing to probe.
      if (!user || !(await verifySmppPassword(pdu.password, user.passwordHash)))
        return refuse('bad credentials');
      if (!link.isOpen) return;
      const mode = MODE_OF[pdu.command];
      const bindId = randomUUID();
      const added = await deps.store.smpp.binds.add(
        { id: bindId, accountId: user.accountId, nodeId: deps.node, mode, since: deps.now() },
        user.maxBinds,
      );
      if (!added) return refuse(`max_binds ${user.maxBinds} reached`);
      const session: CustomerSession = {
        link,
        accountId: user.accountId,
        window: user.window,
        delivering: 0,
      };
      bound = { user, mode, bindId, session };
      state = 'bound';
      answer(pdu, CommandStatus.ESME_ROK, {
        systemId: SERVER_SYSTEM_ID,
        tlvs: [tlv('sc_interface_version', 0x34)],
      });
      logger.info({ systemId: user.systemId, accountId: user.accountId, mode }, 'customer bound');
      if (!link.isOpen) await deps.store.smpp.binds.remove(bindId);
      else if (mode !== 'transmitter') deps.onReceiver(session, true);
    } catch (err) {
      logger.error({ err }, 'bind failed');
      answer(pdu, CommandStatus.ESME_RSYSERR, { systemId: '' });
      state = 'closing';
      void link.end('bind failed');
    }
  }

  async function onMessageRequest(pdu: SubmitPdu | PduOf<'query_sm'> | PduOf<'cancel_sm'>): Promise<void> {
    if (state !== 'bound' || !bound) return answer(pdu, CommandStatus.ESME_RINVBNDSTS);
    if (bound.mode === 'receiver') return answer(pdu, CommandStatus.ESME_RINVBNDSTS);
    // Over the window: refused at once, never queued (decisions §21).
    if (inFlight >= bound.user.window) return answer(pdu, CommandStatus.ESME_RTHROTTLED);
    inFlight++;
    try {
      const acct = await currentAccount();
      if (acct === 'revoked') {
        logger.info({ systemId: bound.user.systemId }, 'credentials changed or removed: unbinding');
        answer(pdu, CommandStatus.ESME_RINVBNDSTS);
        state = 'closing';
        void link
          .request({ command: 'unbind', commandStatus: 0 }, RESPONSE_TIMEOUT_MS)
          .then(() => link.end('credentials revoked'));
        return;
      }
      if (!acct) return answer(pdu, CommandStatus.ESME_RSYSERR);
      if (pdu.command === 'query_sm') {
        const q = await querySmAnswer(deps.store, acct, pdu.messageId);
        return q === null
          ? answer(pdu, CommandStatus.ESME_RQUERYFAIL)
          : answer(pdu, CommandStatus.ESME_ROK, { ...q });
      }
      if (pdu.command === 'cancel_sm') return await onCancel(acct, pdu);
      const result = await submitOnce(acct, pdu);
      if (result.kind === 'accepted') {
        answer(pdu, CommandStatus.ESME_ROK, {
          messageId: result.messageId,
          ...(pdu.command === 'submit_multi' && { unsuccessSmes: result.unsuccess }),
        });
      } else {
        answer(
          pdu,
          result.status,
          pdu.command === 'submit_multi' ? { unsuccessSmes: result.unsuccess ?? [] } : {},
        );
      }
    } catch (err) {
      logger.error({ err, command: pdu.command }, 'request failed');
      answer(pdu, CommandStatus.ESME_RSYSERR);
    } finally {
      inFlight--;
    }
  }

  /**
   * A submit sent again unchanged with the same sequence_number is a client's retry after a
   * lost response (SMPP has no other idempotency key): it gets the first answer, and creates
   * nothing. A changed PDU under a reused number is a new submit.
   */
  async function submitOnce(acct: Account, pdu: SubmitPdu): Promise<SubmitAnswer> {
    let fingerprint: string;
    try {
      fingerprint = createHash('sha256').update(encodePdu(pdu)).digest('base64');
    } catch {
      // A field longer than SMPP allows reads but does not write back: no retry to recognise.
      return deps.submitter.submit(acct, pdu);
    }
    const earlier = recent.get(pdu.sequenceNumber);
    if (earlier?.fingerprint === fingerprint) return earlier.answer;
    const answer = deps.submitter.submit(acct, pdu);
    recent.set(pdu.sequenceNumber, { fingerprint, answer });
    // A failure is not kept: the retry tries again.
    answer.catch(
      () => recent.get(pdu.sequenceNumber)?.answer === answer && recent.delete(pdu.sequenceNumber),
    );
    return answer;
  }

  async function onCancel(acct: Account, pdu: PduOf<'cancel_sm'>): Promise<void> {
    const id = /^\d{1,15}$/.test(pdu.messageId) ? Number(pdu.messageId) : null;
    const message = id === null ? null : await deps.store.messages.get(acct.id, id);
    if (!message) return answer(pdu, CommandStatus.ESME_RCANCELFAIL);
    // As DELETE /sms/message/{id}: recipients not yet sent are cancelled; none left is a failure.
    const changed = await deps.store.engine.cancel(message.id, deps.now());
    answer(pdu, changed.length > 0 ? CommandStatus.ESME_ROK : CommandStatus.ESME_RCANCELFAIL);
  }

  return link;
}
