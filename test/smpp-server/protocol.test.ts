/**
 * The server's side of the protocol with raw sockets: generic_nack on PDUs it cannot read,
 * random bytes that never crash a session or the server, unbind, and idle binds closed.
 */
import fc from 'fast-check';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandStatus, encodePdu, makePdu, PduReader, type Pdu } from '../../src/carriers/smpp/pdu/index.js';
import { startSmppHarness, waitFor, type SmppServerHarness } from './harness.js';

/** A socket that records the PDUs it reads. */
class Raw {
  readonly received: Pdu[] = [];
  closed = false;
  private readonly reader = new PduReader();
  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk) => {
      for (const r of this.reader.feed(chunk)) if (r.kind === 'pdu') this.received.push(r.pdu);
    });
    socket.on('error', () => {});
    socket.on('close', () => (this.closed = true));
  }
  static async open(port: number): Promise<Raw> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
    return new Raw(socket);
  }
  send(pdu: Pdu | Buffer): void {
    this.socket.write(Buffer.isBuffer(pdu) ? pdu : encodePdu(pdu));
  }
  async reply(sequenceNumber: number, command?: string): Promise<Pdu> {
    return waitFor(
      () =>
        this.received.find((p) => p.sequenceNumber === sequenceNumber && (!command || p.command === command)),
      `a reply to ${sequenceNumber}`,
    );
  }
  async bind(seq = 1): Promise<Pdu> {
    this.send(makePdu('bind_transceiver', { sequenceNumber: seq, systemId: 'raw', password: 'pw' }));
    return this.reply(seq);
  }
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((ok) => {
      this.socket.once('close', () => ok());
      this.socket.destroy();
    });
  }
}

describe('SMPP server protocol edges', () => {
  let h: SmppServerHarness;
  beforeAll(async () => {
    h = await startSmppHarness('sqlite', { SMSGW_SMPP_SERVER_IDLE: '1s' });
    await h.customer('raw', 'pw', { max_binds: 64 });
  });
  afterAll(async () => h?.stop());

  /** The server still serves: a new connection binds and is answered. */
  const stillServes = async () => {
    const probe = await Raw.open(h.smppPort);
    expect((await probe.bind(77)).commandStatus).toBe(0);
    probe.send(makePdu('enquire_link', { sequenceNumber: 78 }));
    expect((await probe.reply(78)).command).toBe('enquire_link_resp');
    probe.send(makePdu('unbind', { sequenceNumber: 79 }));
    expect((await probe.reply(79)).command).toBe('unbind_resp');
    await waitFor(() => probe.closed || undefined, 'the connection to close after unbind');
  };

  it('answers an unknown command with generic_nack and keeps the session', async () => {
    const raw = await Raw.open(h.smppPort);
    await raw.bind();
    const unknown = Buffer.alloc(16);
    unknown.writeUInt32BE(16, 0);
    unknown.writeUInt32BE(0x00000777, 4);
    unknown.writeUInt32BE(5, 12);
    raw.send(unknown);
    expect(await raw.reply(5)).toMatchObject({
      command: 'generic_nack',
      commandStatus: CommandStatus.ESME_RINVCMDID,
    });
    // A submit_sm whose body stops half way.
    const truncated = Buffer.alloc(20);
    truncated.writeUInt32BE(20, 0);
    truncated.writeUInt32BE(0x00000004, 4);
    truncated.writeUInt32BE(6, 12);
    truncated.write('abcd', 16, 'latin1');
    raw.send(truncated);
    expect(await raw.reply(6)).toMatchObject({ command: 'generic_nack' });
    raw.send(makePdu('enquire_link', { sequenceNumber: 7 }));
    expect((await raw.reply(7)).command).toBe('enquire_link_resp');
    // A deliver_sm is not something a customer sends.
    raw.send(makePdu('deliver_sm', { sequenceNumber: 8, sourceAddr: '1', destinationAddr: '2' }));
    expect(await raw.reply(8)).toMatchObject({
      command: 'generic_nack',
      commandStatus: CommandStatus.ESME_RINVCMDID,
    });
    await raw.close();
  });

  it('survives random bytes, before and after a bind', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        async (bindFirst, bytes) => {
          const raw = await Raw.open(h.smppPort);
          if (bindFirst) await raw.bind();
          raw.send(Buffer.from(bytes));
          raw.send(makePdu('enquire_link', { sequenceNumber: 0x7fff0001 }));
          // Either the session goes on (the enquire_link is answered) or the server closed a
          // stream it could no longer frame; never anything else.
          await waitFor(
            () => raw.closed || raw.received.some((p) => p.sequenceNumber === 0x7fff0001) || undefined,
            'an answer or a close',
          );
          await raw.close();
        },
      ),
      { numRuns: 60 },
    );
    await stillServes();
  });

  it('survives random PDUs with valid framing', async () => {
    const raw = await Raw.open(h.smppPort);
    await raw.bind();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0x04, 0x03, 0x08, 0x21, 0x103, 0x09, 0x15),
        fc.uint8Array({ maxLength: 200 }),
        fc.integer({ min: 1000, max: 0x7ffffff }),
        async (commandId, body, seq) => {
          const pdu = Buffer.alloc(16 + body.length);
          pdu.writeUInt32BE(pdu.length, 0);
          pdu.writeUInt32BE(commandId, 4);
          pdu.writeUInt32BE(seq, 12);
          pdu.set(body, 16);
          raw.send(pdu);
          await raw.reply(seq);
        },
      ),
      { numRuns: 100 },
    );
    expect(raw.closed).toBe(false);
    await raw.close();
    await stillServes();
  });

  it('unbinds an idle bind and closes it', async () => {
    const raw = await Raw.open(h.smppPort);
    await raw.bind();
    const unbind = await waitFor(
      () => raw.received.find((p) => p.command === 'unbind'),
      'the server unbind',
      10_000,
    );
    raw.send(makePdu('unbind_resp', { sequenceNumber: unbind.sequenceNumber }));
    await waitFor(() => raw.closed || undefined, 'the close');
  });
});
