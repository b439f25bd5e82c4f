/** The bind handshake on a fresh link. */
import { commandStatusName, CommandStatus } from '../pdu/index.js';
import type { Link } from './link.js';

export type BindCommand = 'bind_transceiver' | 'bind_transmitter' | 'bind_receiver';

/** One transceiver link, or a transmitter for submits plus a receiver for receipts and MO. */
export type BindMode = 'transceiver' | 'transmitter_receiver';

export const BIND_COMMANDS: { readonly [M in BindMode]: readonly BindCommand[] } = {
  transceiver: ['bind_transceiver'],
  transmitter_receiver: ['bind_transmitter', 'bind_receiver'],
};

export interface BindCredentials {
  readonly systemId: string;
  readonly password: string;
  readonly systemType: string;
  readonly addrTon: number;
  readonly addrNpi: number;
  readonly addressRange: string;
}

export type BindResult =
  | { readonly kind: 'bound'; readonly smscSystemId: string }
  /** The SMSC answered with an error status (wrong password, already bound …). */
  | { readonly kind: 'refused'; readonly status: number; readonly detail: string }
  | { readonly kind: 'failed'; readonly detail: string };

export async function bind(
  link: Link,
  command: BindCommand,
  credentials: BindCredentials,
  timeoutMs: number,
): Promise<BindResult> {
  const { systemId, password, systemType, addrTon, addrNpi, addressRange } = credentials;
  const reply = await link.request(
    {
      command,
      commandStatus: 0,
      interfaceVersion: 0x34,
      systemId,
      password,
      systemType,
      addrTon,
      addrNpi,
      addressRange,
    },
    timeoutMs,
  );
  if (reply.kind === 'failed') return { kind: 'failed', detail: `${command}: ${reply.detail}` };
  const { pdu } = reply;
  if (pdu.commandStatus !== CommandStatus.ESME_ROK) {
    const detail = `${command} refused: ${commandStatusName(pdu.commandStatus)}`;
    return { kind: 'refused', status: pdu.commandStatus, detail };
  }
  if (pdu.command !== `${command}_resp`)
    return { kind: 'failed', detail: `${command} answered by ${pdu.command}` };
  return { kind: 'bound', smscSystemId: 'systemId' in pdu ? pdu.systemId : '' };
}
