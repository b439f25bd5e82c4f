/** Handset messages (MO) from our simulator to our connector, including concatenated ones. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmscSimulator } from '../../../../src/carriers/smpp/smsc/index.js';
import { Harness, waitFor, type Recorder } from '../helpers.js';

describe('connector ↔ smsc-sim: inbound messages', () => {
  const h = new Harness();
  let sim: SmscSimulator;
  let events: Recorder;

  beforeAll(async () => {
    sim = await h.sim();
    ({ events } = await h.started(sim.port));
  });
  afterAll(() => h.stopAll());

  it('a short GSM message, numbers as + E.164', async () => {
    expect(await sim.injectMo('+447700900201', '+447700900001', 'Hi there @ £5')).toBe(true);
    expect(events.messages.at(-1)).toMatchObject({
      from: '+447700900201',
      to: '+447700900001',
      body: 'Hi there @ £5',
    });
  });

  it('a long message arrives once, reassembled', async () => {
    const text = 'Reassemble me please. '.repeat(20);
    const before = events.messages.length;
    expect(await sim.injectMo('+447700900202', '+447700900001', text)).toBe(true);
    expect(events.messages.length).toBe(before + 1);
    expect(events.messages.at(-1)?.body).toBe(text);
  });

  it('a long UCS-2 message with emoji', async () => {
    const text = 'Привет 👋 '.repeat(20);
    expect(await sim.injectMo('+447700900203', '+447700900001', text)).toBe(true);
    expect(events.messages.at(-1)?.body).toBe(text);
  });

  it('a short code and an alphanumeric sender stay as given', async () => {
    await sim.injectMo('+447700900204', '12345', 'to a short code');
    expect(events.messages.at(-1)).toMatchObject({ from: '+447700900204', to: '12345' });
    await sim.injectMo('BANK', '+447700900001', 'from letters');
    expect(events.messages.at(-1)).toMatchObject({ from: 'BANK', to: '+447700900001' });
  });

  it('receivedAt is a time in ms', async () => {
    const at = Date.now();
    await sim.injectMo('+447700900205', '+447700900001', 'when?');
    await waitFor(() => events.messages.at(-1)?.body === 'when?', 'the message');
    expect(events.messages.at(-1)!.receivedAt).toBeGreaterThanOrEqual(at - 1000);
  });
});
