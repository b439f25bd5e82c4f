/** Link writes: PDUs sent in one turn share a write, and each still arrives whole and in order. */
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makePdu, PduReader, type Pdu } from '../../../../src/carriers/smpp/pdu/index.js';
import { Link } from '../../../../src/carriers/smpp/session/index.js';
import { testLogger, waitFor } from '../helpers.js';

describe('link writes', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));

  /** A Link over a real TCP connection, and what its peer reads. */
  async function linked() {
    const received: Pdu[] = [];
    const server = net.createServer((peer) => {
      const reader = new PduReader();
      peer.on('data', (chunk) => {
        for (const r of reader.feed(chunk)) if (r.kind === 'pdu') received.push(r.pdu);
      });
      cleanups.push(() => peer.destroy());
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    cleanups.push(() => server.close());
    const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
    await new Promise((ok) => socket.once('connect', ok));
    const writes = vi.spyOn(socket, 'write');
    const link = new Link(socket, {
      logger: testLogger,
      onRequest: () => {},
      enquireLinkMs: 0,
      responseTimeoutMs: 1_000,
    });
    cleanups.push(() => link.destroy('test over'));
    return { link, received, writes };
  }

  it('PDUs sent in one turn go out in one write, each read back in order', async () => {
    const { link, received, writes } = await linked();
    for (let seq = 1; seq <= 50; seq++) link.send(makePdu('enquire_link_resp', { sequenceNumber: seq }));
    expect(writes).not.toHaveBeenCalled();
    await waitFor(() => received.length === 50, 'all 50 PDUs');
    expect(writes).toHaveBeenCalledTimes(1);
    expect(received.map((p) => p.sequenceNumber)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('PDUs sent in later turns are written again', async () => {
    const { link, received, writes } = await linked();
    link.send(makePdu('enquire_link_resp', { sequenceNumber: 1 }));
    await new Promise((r) => setImmediate(r));
    link.send(makePdu('enquire_link_resp', { sequenceNumber: 2 }));
    await waitFor(() => received.length === 2, 'both PDUs');
    expect(writes).toHaveBeenCalledTimes(2);
  });

  it('a PDU that cannot be encoded throws and leaves the others of its turn intact', async () => {
    const { link, received } = await linked();
    link.send(makePdu('enquire_link_resp', { sequenceNumber: 1 }));
    const tooLong = makePdu('submit_sm_resp', { sequenceNumber: 2, messageId: 'x'.repeat(65) });
    expect(() => link.send(tooLong)).toThrow(/messageId/);
    link.send(makePdu('enquire_link_resp', { sequenceNumber: 3 }));
    await waitFor(() => received.length === 2, 'the two good PDUs');
    await new Promise((r) => setTimeout(r, 50));
    expect(received.map((p) => p.sequenceNumber)).toEqual([1, 3]);
  });

  it('end() and destroy() first write what was sent', async () => {
    const ending = await linked();
    ending.link.send(makePdu('unbind_resp', { sequenceNumber: 7 }));
    await ending.link.end('done');
    await waitFor(() => ending.received.length === 1, 'the unbind_resp');

    const destroyed = await linked();
    destroyed.link.send(makePdu('generic_nack', { sequenceNumber: 8, commandStatus: 3 }));
    destroyed.link.destroy('broken stream');
    await waitFor(() => destroyed.received.length === 1, 'the generic_nack');
    expect(destroyed.received[0]).toMatchObject({ command: 'generic_nack', sequenceNumber: 8 });
  });
});
