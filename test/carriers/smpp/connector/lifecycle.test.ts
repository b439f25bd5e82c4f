/** Binding, losing the SMSC, getting it back, and stopping cleanly. */
import { afterAll, describe, expect, it } from 'vitest';
import { Harness, request, waitFor } from '../helpers.js';

describe('connector ↔ smsc-sim: lifecycle', () => {
  const h = new Harness();
  afterAll(() => h.stopAll());

  it('SMSC killed → submits fail fast with retry → SMSC back → rebinds and submits succeed', async () => {
    const first = await h.sim();
    const port = first.port;
    const { connector } = await h.started(port);
    expect((await connector.submit(request('+447700900160', 'before'))).kind).toBe('accepted');

    await first.close();
    await waitFor(() => !connector.state().bound, 'the connector to notice');
    const started = Date.now();
    const during = await connector.submit(request('+447700900161', 'during'));
    expect(during).toMatchObject({ kind: 'retry' });
    expect(during.kind === 'retry' && during.reason).toMatch(/^not-bound/);
    expect(Date.now() - started).toBeLessThan(2_000); // fail fast: far below the 5 s response timeout

    const second = await h.sim({ port });
    await waitFor(() => connector.state().bound, 'the connector to rebind');
    expect((await connector.submit(request('+447700900162', 'after'))).kind).toBe('accepted');
    expect(second.stats.submitCount('447700900162')).toBe(1);
    expect(connector.state().lastError?.detail).toMatch(/link lost|connect/);
  });

  it('stop() unbinds cleanly and then refuses submits', async () => {
    const sim = await h.sim();
    const { connector } = await h.started(sim.port);
    expect(sim.connections()).toBe(1);
    await connector.stop();
    expect(sim.stats.unbinds).toBe(1);
    await waitFor(() => sim.connections() === 0, 'the connection to close');
    expect(await connector.submit(request('+447700900163', 'late'))).toMatchObject({ kind: 'retry' });
  });

  it('stop() waits for submits in flight', async () => {
    const sim = await h.sim({ responseDelayMs: 300 });
    const { connector } = await h.started(sim.port);
    const pending = connector.submit(request('+447700900164', 'in flight'));
    await waitFor(() => sim.stats.submits.length === 1, 'the submit to arrive');
    await connector.stop();
    expect(await pending).toMatchObject({ kind: 'accepted' });
    expect(sim.stats.unbinds).toBe(1);
  });

  it('a refused bind leaves it unbound, retrying, with the reason on record', async () => {
    const sim = await h.sim({ password: 'right' });
    const { connector } = await h.started(sim.port, { password: 'wrong' });
    expect(connector.state()).toMatchObject({ bound: false });
    expect(connector.state().lastError?.detail).toContain('ESME_RINVPASWD');
    expect(await connector.submit(request('+447700900165', 'x'))).toMatchObject({ kind: 'retry' });
  });

  it('an SMSC that is not there yet: start() returns, the connector binds once it appears', async () => {
    const probe = await h.sim();
    const port = probe.port;
    await probe.close();
    const { connector } = await h.started(port);
    expect(connector.state().bound).toBe(false);
    await h.sim({ port });
    await waitFor(() => connector.state().bound, 'the late bind');
  });

  it('transmitter + receiver pair: submits on one, receipts on the other', async () => {
    const sim = await h.sim({ receiptDelayMs: 20 });
    const { connector, events } = await h.started(sim.port, { bindMode: 'transmitter_receiver' });
    expect(sim.stats.binds).toBe(2);
    const outcome = await connector.submit(request('+447700900170', 'pair'));
    const [id] = outcome.kind === 'accepted' ? outcome.carrierIds : [];
    await waitFor(() => events.receipts.find((r) => r.carrierId === id), 'the receipt');
    await sim.injectMo('+447700900266', '+447700900001', 'mo on the receiver');
    expect(events.messages.at(-1)?.body).toBe('mo on the receiver');
  });
});
