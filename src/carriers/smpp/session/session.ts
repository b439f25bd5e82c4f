/**
 * The ESME side of an SMPP link: stays bound (reconnecting with backoff), paces and windows
 * submits, acknowledges deliveries once they are handled, and unbinds cleanly on stop.
 */
import { CommandStatus, makePdu, makeRequest, type Pdu, type PduFields } from '../pdu/index.js';
import { backoffDelay } from './backoff.js';
import type { Link } from './link.js';
import { openLinks, refuse, unbindLinks } from './open-links.js';
import { resolveSessionOptions, type InboundPdu, type SmppSessionOptions } from './options.js';
import { RateMeter } from './rate-meter.js';
import type { Reply, RequestFailure } from './reply.js';
import { TokenBucket } from './token-bucket.js';
import { Window } from './window.js';

/**
 * A link must stay up this long before a drop counts as a fresh start of the backoff: an SMSC
 * that accepts the bind and drops us straight away is not hammered every half second.
 */
const STABLE_LINK_MS = 30_000;

export type SessionState = 'idle' | 'connecting' | 'bound' | 'stopping' | 'stopped';

export type SubmitFields = Partial<Omit<PduFields<'submit_sm'>, 'sequenceNumber' | 'commandStatus'>>;

export type SubmitResult =
  | { readonly kind: 'response'; readonly commandStatus: number; readonly messageId: string }
  | { readonly kind: 'failed'; readonly error: RequestFailure; readonly detail: string };

export interface SessionStatus {
  readonly state: SessionState;
  /** Submits taken and not yet answered, including those waiting for a window slot or the rate. */
  readonly inFlight: number;
  /** The submit rate in force (messages/s, 0 = unlimited); lower than configured while slowed down. */
  readonly rateLimit: number;
  /** submit_sm actually sent per second, recently. */
  readonly recentRate: number;
  readonly lastError: { readonly at: number; readonly detail: string } | null;
}

export interface SmppSession {
  /** Resolves after the first connect-and-bind attempt (true when bound); retries go on in the background. */
  start(): Promise<boolean>;
  /**
   * `onAccepted` gets the message id the moment an ESME_ROK submit_sm_resp is read, before any
   * PDU behind it (such as the receipt for that very message) is handled.
   */
  submit(fields: SubmitFields, onAccepted?: (messageId: string) => void): Promise<SubmitResult>;
  /** The SMSC says we are too fast: lower the rate for a while. */
  slowDown(): void;
  /** Stop taking submits, wait (bounded) for outstanding work, unbind, close. */
  stop(): Promise<void>;
  status(): SessionStatus;
  /** status().state === 'bound', without building the status (asked per submit). */
  isBound(): boolean;
}

export function createSmppSession(input: SmppSessionOptions): SmppSession {
  const options = resolveSessionOptions(input);
  const { logger } = options;
  const window = new Window(options.window);
  const meter = new RateMeter();
  const bucket = new TokenBucket({
    rate: options.throughput,
    slowDownMs: options.slowDownMs,
    recentRate: () => meter.perSecond(),
  });
  let state: SessionState = 'idle';
  let links: readonly Link[] | null = null;
  let attempt = 0;
  let boundAt = 0;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let connecting: Promise<boolean> | null = null;
  let stopping: Promise<void> | null = null;
  let inFlight = 0;
  let inbound = 0;
  let lastError: SessionStatus['lastError'] = null;
  // Ends waits for a turn at the rate limit when stop() begins: those submits fail 'stopping'.
  const stopSignal = new AbortController();

  const noteError = (detail: string) => (lastError = { at: Date.now(), detail });
  const ending = () => state === 'stopping' || state === 'stopped';

  const onRequest = (link: Link, pdu: Pdu) => {
    if (pdu.command === 'deliver_sm' || pdu.command === 'data_sm') void acknowledge(link, pdu);
    else refuse(link, pdu, CommandStatus.ESME_RINVCMDID);
  };

  // The response waits for the handler: a receipt is on disk before the SMSC forgets it.
  const acknowledge = async (link: Link, pdu: InboundPdu) => {
    inbound++;
    let commandStatus: number = CommandStatus.ESME_ROK;
    try {
      await options.onDeliver(pdu);
    } catch (err) {
      commandStatus = CommandStatus.ESME_RX_T_APPN;
      logger.warn(
        { err, seq: pdu.sequenceNumber },
        `${pdu.command} not handled; asking the SMSC to redeliver`,
      );
    } finally {
      inbound--;
    }
    const command = pdu.command === 'deliver_sm' ? 'deliver_sm_resp' : 'data_sm_resp';
    link.send(makePdu(command, { sequenceNumber: pdu.sequenceNumber, commandStatus }));
  };

  const connectOnce = async (): Promise<boolean> => {
    state = 'connecting';
    const result = await openLinks(options, onRequest);
    if (ending()) {
      if (result.kind === 'bound') await unbindLinks(result.links, options.responseTimeoutMs);
      return false;
    }
    if (result.kind === 'failed') {
      noteError(result.detail);
      logger.warn({ detail: result.detail, attempt }, 'smpp bind failed');
      scheduleReconnect();
      return false;
    }
    const bound = result.links;
    links = bound;
    boundAt = Date.now();
    state = 'bound';
    logger.info({ host: options.host, port: options.port, mode: options.bindMode }, 'smpp bound');
    void Promise.race(bound.map((l) => l.closed)).then((reason) => lost(bound, reason));
    return true;
  };

  const lost = (which: readonly Link[], reason: string) => {
    if (links !== which) return;
    links = null;
    for (const link of which) link.destroy(reason);
    if (ending()) return;
    if (Date.now() - boundAt >= STABLE_LINK_MS) attempt = 0;
    noteError(`link lost: ${reason}`);
    logger.warn({ reason }, 'smpp link lost; reconnecting');
    scheduleReconnect();
  };

  const scheduleReconnect = () => {
    if (ending()) return;
    state = 'connecting';
    const delay = backoffDelay(attempt++, options.reconnect);
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connecting = connectOnce().finally(() => (connecting = null));
    }, delay);
  };

  /** A submit's window slot goes back: it has its outcome, or it could not be written. */
  const giveBack = () => {
    window.release();
    inFlight--;
  };
  const settle = (result: SubmitResult): SubmitResult => {
    giveBack();
    return result;
  };
  const answered = (reply: Reply): SubmitResult =>
    settle(reply.kind === 'failed' ? reply : readSubmitResp(reply.pdu));
  /**
   * The response hook of each onAccepted (in practice one per connector): made once, not per
   * submit.
   */
  const responseHooks = new WeakMap<(messageId: string) => void, (response: Pdu) => void>();
  const responseHook = (onAccepted: (messageId: string) => void) => {
    let hook = responseHooks.get(onAccepted);
    if (hook === undefined) {
      hook = (response: Pdu) => {
        if (response.command === 'submit_sm_resp' && response.commandStatus === CommandStatus.ESME_ROK)
          onAccepted(response.messageId);
      };
      responseHooks.set(onAccepted, hook);
    }
    return hook;
  };

  /** Sends with a window slot held; the slot goes back once the submit has its outcome. */
  const transmit = (
    fields: SubmitFields,
    onAccepted: ((messageId: string) => void) | undefined,
  ): Promise<SubmitResult> => {
    try {
      if (ending())
        return Promise.resolve(settle({ kind: 'failed', error: 'stopping', detail: 'session stopping' }));
      const link = links?.[0];
      if (!link)
        return Promise.resolve(
          settle({ kind: 'failed', error: 'not-bound', detail: 'not bound to the SMSC' }),
        );
      meter.mark();
      // The link numbers it as it sends it.
      const pdu = makeRequest('submit_sm', fields);
      const onResponse = onAccepted && responseHook(onAccepted);
      return link.request(pdu, options.responseTimeoutMs, onResponse).then(answered);
    } catch (error) {
      // A PDU that cannot be encoded: nothing was written, the slot goes back at once.
      giveBack();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };

  /** A submit waits for a window slot, then for its turn at the rate limit. */
  const waitThenTransmit = async (
    fields: SubmitFields,
    onAccepted: ((messageId: string) => void) | undefined,
    holdsSlot: boolean,
  ): Promise<SubmitResult> => {
    if (!holdsSlot) await window.acquire();
    await bucket.take(stopSignal.signal);
    return transmit(fields, onAccepted);
  };

  const send = (
    fields: SubmitFields,
    onAccepted: ((messageId: string) => void) | undefined,
  ): Promise<SubmitResult> => {
    inFlight++;
    // Most submits find a free slot and no rate to keep: they go without an await of their own
    // (each a promise and a suspended frame, for every submit at window rates).
    const holdsSlot = window.tryAcquire();
    if (holdsSlot && bucket.open) return transmit(fields, onAccepted);
    return waitThenTransmit(fields, onAccepted, holdsSlot);
  };

  return {
    start() {
      if (state !== 'idle') return Promise.resolve(state === 'bound');
      connecting = connectOnce().finally(() => (connecting = null));
      return connecting;
    },
    submit(fields, onAccepted) {
      if (ending()) return Promise.resolve({ kind: 'failed', error: 'stopping', detail: 'session stopping' });
      if (!links)
        return Promise.resolve({ kind: 'failed', error: 'not-bound', detail: `not bound (${state})` });
      return send(fields, onAccepted);
    },
    slowDown: () => bucket.slowDown(),
    stop() {
      stopping ??= (async () => {
        state = 'stopping';
        stopSignal.abort();
        if (reconnectTimer) clearTimeout(reconnectTimer);
        await connecting;
        await until(() => inFlight === 0 && inbound === 0, options.shutdownTimeoutMs);
        const open = links;
        links = null;
        if (open) await unbindLinks(open, options.responseTimeoutMs);
        state = 'stopped';
        logger.info('smpp session stopped');
      })();
      return stopping;
    },
    isBound: () => state === 'bound',
    status: () => ({
      state,
      inFlight,
      rateLimit: bucket.rate,
      recentRate: meter.perSecond(),
      lastError,
    }),
  };
}

function readSubmitResp(pdu: Pdu): SubmitResult {
  if (pdu.command === 'submit_sm_resp') {
    return { kind: 'response', commandStatus: pdu.commandStatus, messageId: pdu.messageId };
  }
  // generic_nack (or a wrong response type): the SMSC could not take the PDU at all.
  const commandStatus = pdu.commandStatus === 0 ? CommandStatus.ESME_RINVCMDID : pdu.commandStatus;
  return { kind: 'response', commandStatus, messageId: '' };
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
