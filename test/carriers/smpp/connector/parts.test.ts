/** Long and non-GSM texts through our connector to our simulator, in every concatenation mode. */
import { afterAll, describe, expect, it } from 'vitest';
import { Harness, request, waitFor } from '../helpers.js';

const LONG = 'The quick brown fox jumps over the lazy dog. '.repeat(9).trim(); // 404 GSM septets → 3 parts
const GREEK = 'Καλημέρα κόσμε! Ένα μήνυμα UCS-2 με emoji 😀 στο τέλος.'; // 55 UTF-16 units: one part

describe('connector ↔ smsc-sim: parts and codings', () => {
  const h = new Harness();
  afterAll(() => h.stopAll());

  it('a 3-part message → 3 submits with one UDH reference, 3 ids, 3 receipts', async () => {
    const sim = await h.sim({ receiptDelayMs: 50 });
    const { connector, events } = await h.started(sim.port);
    const outcome = await connector.submit(request('+447700900140', LONG));
    expect(outcome.kind).toBe('accepted');
    const ids = outcome.kind === 'accepted' ? outcome.carrierIds : [];
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    const parts = sim.stats.submits.filter((s) => s.destination === '447700900140');
    expect(parts.map((p) => p.concat?.seq)).toEqual([1, 2, 3]);
    expect(new Set(parts.map((p) => p.concat?.ref)).size).toBe(1);
    expect(sim.stats.texts('+447700900140')).toEqual([LONG]);
    await waitFor(() => events.receipts.length === 3, '3 receipts');
    expect(events.receipts.map((r) => r.carrierId).sort()).toEqual([...ids].sort());
    expect(events.receipts.every((r) => r.state === 'delivered')).toBe(true);
  });

  it('UCS-2 when the text needs it, single and multi-part', async () => {
    const sim = await h.sim();
    const { connector } = await h.started(sim.port);
    expect((await connector.submit(request('+447700900141', GREEK))).kind).toBe('accepted');
    const long = GREEK.repeat(3);
    const outcome = await connector.submit(request('+447700900142', long));
    expect(outcome.kind === 'accepted' && outcome.carrierIds.length).toBe(3); // 165 units, 67 per part
    expect(
      sim.stats.submits.filter((s) => s.destination === '447700900141').map((s) => s.dataCoding),
    ).toEqual([8]);
    expect(sim.stats.texts('447700900141')).toEqual([GREEK]);
    expect(sim.stats.texts('447700900142')).toEqual([long]);
  });

  it('Latin-1 as the default coding for GSM text when configured', async () => {
    const sim = await h.sim();
    const { connector } = await h.started(sim.port, { defaultDataCoding: 3 });
    await connector.submit(request('+447700900143', 'Café ok'));
    expect(sim.stats.submits.at(-1)).toMatchObject({ dataCoding: 3, text: 'Café ok' });
  });

  it.each(['udh16', 'sar'] as const)('%s concatenation reassembles at the SMSC', async (mode) => {
    const sim = await h.sim();
    const { connector } = await h.started(sim.port, { concatenation: mode });
    const outcome = await connector.submit(request('+447700900144', LONG));
    expect(outcome.kind).toBe('accepted');
    expect(sim.stats.texts('447700900144')).toEqual([LONG]);
  });

  it('payload mode sends one data-carrying submit for the whole text', async () => {
    const sim = await h.sim({ receiptDelayMs: 20 });
    const { connector, events } = await h.started(sim.port, { concatenation: 'payload' });
    const outcome = await connector.submit(request('+447700900145', LONG));
    expect(outcome.kind === 'accepted' && outcome.carrierIds.length).toBe(1);
    expect(sim.stats.texts('447700900145')).toEqual([LONG]);
    await waitFor(() => events.receipts.length === 1, 'one receipt');
  });

  it('a later part refused permanently → rejected, naming the parts already accepted', async () => {
    const sim = await h.sim();
    const { connector } = await h.started(sim.port);
    // Every part to a ...6 number is refused, so the first part already fails.
    const outcome = await connector.submit(request('+447700900146', LONG));
    expect(outcome).toMatchObject({ kind: 'rejected', code: 0x45 });
    expect(sim.stats.submitCount('447700900146')).toBe(1);
  });
});
