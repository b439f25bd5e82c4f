/** Connect and bind: one transceiver link, or a transmitter and a receiver. */
import { makePdu, type Pdu } from '../pdu/index.js';
import { bind, BIND_COMMANDS } from './bind.js';
import { openSocket } from './connect.js';
import { Link } from './link.js';
import type { ResolvedSessionOptions } from './options.js';

export type OpenResult =
  /** links[0] carries submits; every link may carry deliver_sm. */
  | { readonly kind: 'bound'; readonly links: readonly Link[] }
  | { readonly kind: 'failed'; readonly detail: string };

export async function openLinks(
  options: ResolvedSessionOptions,
  onRequest: (link: Link, pdu: Pdu) => void,
): Promise<OpenResult> {
  const links: Link[] = [];
  const fail = (detail: string): OpenResult => {
    for (const link of links) link.destroy(detail);
    return { kind: 'failed', detail };
  };
  for (const command of BIND_COMMANDS[options.bindMode]) {
    const conn = await openSocket(options, options.connectTimeoutMs);
    if (conn.kind === 'failed') return fail(`connect ${options.host}:${options.port}: ${conn.detail}`);
    const link: Link = new Link(conn.socket, {
      logger: options.logger.child({ link: command.slice(5) }),
      onRequest: (pdu) => onRequest(link, pdu),
      enquireLinkMs: options.enquireLinkMs,
      responseTimeoutMs: options.responseTimeoutMs,
    });
    links.push(link);
    const result = await bind(link, command, options, options.responseTimeoutMs);
    if (result.kind !== 'bound') return fail(result.detail);
  }
  return { kind: 'bound', links };
}

/** Polite close: unbind, wait for unbind_resp (bounded), then close the socket. */
export async function unbindLinks(links: readonly Link[], timeoutMs: number): Promise<void> {
  await Promise.all(
    links.map(async (link) => {
      if (link.isOpen) await link.request({ command: 'unbind', commandStatus: 0 }, timeoutMs);
      await link.end('unbound');
    }),
  );
}

/** A request we do not serve as an ESME (submit_sm, query_sm, a bind …). */
export function refuse(link: Link, pdu: Pdu, status: number): void {
  link.send(makePdu('generic_nack', { sequenceNumber: pdu.sequenceNumber, commandStatus: status }));
}
