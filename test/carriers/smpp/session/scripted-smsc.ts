/**
 * A bare SMSC for session tests: a TCP server that reads PDUs with our codec, answers binds,
 * and otherwise does only what the test tells it, so misbehaviour can be scripted.
 */
import net from 'node:net';
import {
  encodePdu,
  makePdu,
  PduReader,
  type DecodeResult,
  type Pdu,
} from '../../../../src/carriers/smpp/pdu/index.js';

export interface ScriptedOptions {
  /** Answer enquire_link (default true). */
  answerEnquireLink?: () => boolean;
  /** Answer unbind (default true). */
  answerUnbind?: boolean;
  /** Called for each PDU after the automatic answers; may write replies. */
  onPdu?: (pdu: Pdu, conn: ScriptedConnection) => void;
}

export interface ScriptedConnection {
  readonly received: DecodeResult[];
  write(pduOrBytes: Pdu | Buffer): void;
  readonly socket: net.Socket;
}

export interface ScriptedSmsc {
  readonly port: number;
  readonly connections: ScriptedConnection[];
  /** Every PDU received on every connection, in order. */
  pdus(): Pdu[];
  close(): Promise<void>;
}

export async function scriptedSmsc(options: ScriptedOptions = {}): Promise<ScriptedSmsc> {
  const connections: ScriptedConnection[] = [];
  const server = net.createServer((socket) => {
    const reader = new PduReader();
    const conn: ScriptedConnection = {
      received: [],
      socket,
      write: (p) => socket.write(Buffer.isBuffer(p) ? p : encodePdu(p)),
    };
    connections.push(conn);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      for (const result of reader.feed(chunk)) {
        conn.received.push(result);
        if (result.kind !== 'pdu') continue;
        const pdu = result.pdu;
        const seq = pdu.sequenceNumber;
        if (pdu.command === 'bind_transceiver')
          conn.write(makePdu('bind_transceiver_resp', { sequenceNumber: seq, systemId: 'scripted' }));
        if (pdu.command === 'unbind' && options.answerUnbind !== false)
          conn.write(makePdu('unbind_resp', { sequenceNumber: seq }));
        if (pdu.command === 'enquire_link' && (options.answerEnquireLink?.() ?? true)) {
          conn.write(makePdu('enquire_link_resp', { sequenceNumber: seq }));
        }
        options.onPdu?.(pdu, conn);
      }
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections,
    pdus: () => connections.flatMap((c) => c.received.flatMap((r) => (r.kind === 'pdu' ? [r.pdu] : []))),
    close: async () => {
      for (const c of connections) c.socket.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
