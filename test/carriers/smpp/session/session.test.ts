/** The ESME session against a scripted SMSC: keep-alive, bad PDUs, acknowledgement order. */
import { afterEach, describe, expect, it } from 'vitest';
import { CommandStatus, encodePdu, makePdu, type Pdu } from '../../../../src/carriers/smpp/pdu/index.js';
import {
  createSmppSession,
  type InboundPdu,
  type SmppSession,
} from '../../../../src/carriers/smpp/session/index.js';
import { testLogger, waitFor } from '../helpers.js';
import { scriptedSmsc, type ScriptedOptions, type ScriptedSmsc } from './scripted-smsc.js';

describe('smpp session', () => {
  let smsc: ScriptedSmsc;
  let session: SmppSession;

  afterEach(async () => {
    await session?.stop();
    await smsc?.close();
  });

  async function start(
    scripted: ScriptedOptions = {},
    onDeliver: (pdu: InboundPdu) => Promise<void> = async () => {},
    extra: { enquireLinkMs?: number; responseTimeoutMs?: number } = {},
  ) {
    smsc = await scriptedSmsc(scripted);
    session = createSmppSession({
      host: '127.0.0.1',
      port: smsc.port,
      systemId: 'esme',
      password: 'pw',
      logger: testLogger,
      reconnect: { initialMs: 50, maxMs: 200 },
      onDeliver,
      ...extra,
    });
    expect(await session.start()).toBe(true);
  }

  const commands = () => smsc.pdus().map((p) => p.command);

  it('binds as transceiver with the credentials and interface version 3.4', async () => {
    await start();
    expect(smsc.pdus()[0]).toMatchObject({
      command: 'bind_transceiver',
      systemId: 'esme',
      password: 'pw',
      interfaceVersion: 0x34,
    });
  });

  it('sends enquire_link when idle, and reconnects when one goes unanswered', async () => {
    let answer = true;
    await start({ answerEnquireLink: () => answer }, undefined, {
      enquireLinkMs: 100,
      responseTimeoutMs: 200,
    });
    await waitFor(() => commands().filter((c) => c === 'enquire_link').length >= 2, 'two enquire_links');
    expect(smsc.connections).toHaveLength(1);
    answer = false;
    await waitFor(
      () => smsc.connections.length === 2 && session.status().state === 'bound',
      'a new connection',
    );
    expect(smsc.connections[0]!.socket.destroyed || smsc.connections[0]!.socket.readableEnded).toBe(true);
  });

  it("answers the SMSC's enquire_link", async () => {
    await start();
    smsc.connections[0]!.write(makePdu('enquire_link', { sequenceNumber: 77 }));
    await waitFor(() => smsc.pdus().find((p) => p.command === 'enquire_link_resp'), 'enquire_link_resp');
    expect(smsc.pdus().find((p) => p.command === 'enquire_link_resp')?.sequenceNumber).toBe(77);
  });

  it('answers an unknown command with generic_nack ESME_RINVCMDID and stays bound', async () => {
    await start();
    const unknown = Buffer.from('00000010' + '00000099' + '00000000' + '0000002a', 'hex');
    smsc.connections[0]!.write(unknown);
    const nack = await waitFor(() => smsc.pdus().find((p) => p.command === 'generic_nack'), 'generic_nack');
    expect(nack).toMatchObject({ sequenceNumber: 42, commandStatus: CommandStatus.ESME_RINVCMDID });
    expect(session.status().state).toBe('bound');
  });

  it('a broken stream (command_length < 16) closes the link; it then reconnects', async () => {
    await start();
    smsc.connections[0]!.write(Buffer.from('0000000400000000', 'hex'));
    await waitFor(() => smsc.connections.length === 2 && session.status().state === 'bound', 'the reconnect');
  });

  it('acknowledges a deliver_sm only after the handler resolves', async () => {
    let release: () => void = () => {};
    const handled = new Promise<void>((r) => (release = r));
    let seen: InboundPdu | null = null;
    await start({}, async (pdu) => {
      seen = pdu;
      await handled;
    });
    smsc.connections[0]!.write(
      makePdu('deliver_sm', { sequenceNumber: 5, sourceAddr: '1', shortMessage: Buffer.from('hi') }),
    );
    await waitFor(() => seen, 'the handler call');
    await new Promise((r) => setTimeout(r, 100));
    expect(commands()).not.toContain('deliver_sm_resp');
    release();
    const resp = await waitFor(
      () => smsc.pdus().find((p) => p.command === 'deliver_sm_resp'),
      'deliver_sm_resp',
    );
    expect(resp).toMatchObject({ sequenceNumber: 5, commandStatus: 0 });
  });

  it('answers ESME_RX_T_APPN when the handler fails, and data_sm with data_sm_resp', async () => {
    await start({}, async () => {
      throw new Error('disk full');
    });
    smsc.connections[0]!.write(makePdu('data_sm', { sequenceNumber: 9, sourceAddr: '1' }));
    const resp = await waitFor(() => smsc.pdus().find((p) => p.command === 'data_sm_resp'), 'data_sm_resp');
    expect(resp).toMatchObject({ sequenceNumber: 9, commandStatus: CommandStatus.ESME_RX_T_APPN });
  });

  it('onAccepted sees the message id before a deliver_sm read in the same chunk is handled', async () => {
    const seen: string[] = [];
    await start(
      {
        onPdu: (pdu: Pdu, conn) => {
          if (pdu.command !== 'submit_sm') return;
          const response = makePdu('submit_sm_resp', { sequenceNumber: pdu.sequenceNumber, messageId: 'm1' });
          const deliver = makePdu('deliver_sm', { sequenceNumber: 50, shortMessage: Buffer.from('x') });
          conn.write(Buffer.concat([encodePdu(response), encodePdu(deliver)]));
        },
      },
      async () => void seen.push('deliver_sm handled'),
    );
    const result = await session.submit({ destinationAddr: '1' }, (id) => seen.push(`accepted ${id}`));
    expect(result).toEqual({ kind: 'response', commandStatus: 0, messageId: 'm1' });
    await waitFor(() => seen.length === 2, 'both');
    expect(seen).toEqual(['accepted m1', 'deliver_sm handled']);
  });

  it('a submit answered by generic_nack reports its status', async () => {
    await start({
      onPdu: (pdu: Pdu, conn) => {
        if (pdu.command === 'submit_sm') {
          conn.write(
            makePdu('generic_nack', {
              sequenceNumber: pdu.sequenceNumber,
              commandStatus: CommandStatus.ESME_RINVCMDLEN,
            }),
          );
        }
      },
    });
    expect(await session.submit({ destinationAddr: '1' })).toEqual({
      kind: 'response',
      commandStatus: CommandStatus.ESME_RINVCMDLEN,
      messageId: '',
    });
  });

  it('the SMSC unbinding us → unbind_resp, then a new bind', async () => {
    await start();
    smsc.connections[0]!.write(makePdu('unbind', { sequenceNumber: 3 }));
    await waitFor(() => smsc.pdus().find((p) => p.command === 'unbind_resp'), 'unbind_resp');
    await waitFor(() => smsc.connections.length === 2 && session.status().state === 'bound', 'the rebind');
  });

  it('stop() sends unbind and waits for unbind_resp', async () => {
    await start();
    await session.stop();
    expect(commands()).toContain('unbind');
    expect(session.status().state).toBe('stopped');
    await waitFor(
      () => smsc.connections[0]!.socket.readableEnded || smsc.connections[0]!.socket.destroyed,
      'the close',
    );
  });

  it('stop() gives up waiting for an unbind_resp that never comes', async () => {
    await start({ answerUnbind: false }, undefined, { responseTimeoutMs: 300 });
    const started = Date.now();
    await session.stop();
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(session.status().state).toBe('stopped');
  });
});
