/** `smsgw smsc-sim` as the CLI runs it: options, the MO endpoint, stopping. */
import { afterAll, describe, expect, it } from 'vitest';
import { runSmscSim } from '../../../../src/cli/smsc-sim.js';
import { UsageError } from '../../../../src/cli/context.js';
import { Harness, request, waitFor } from '../helpers.js';

describe('smsgw smsc-sim', () => {
  const h = new Harness();
  afterAll(() => h.stopAll());

  it('serves SMPP and POST /mo until stopped', async () => {
    const abort = new AbortController();
    let ports: { port: number; httpPort: number | null } | null = null;
    const running = runSmscSim(
      [
        '--port',
        '0',
        '--http-port',
        '0',
        '--log-level',
        'silent',
        '--id-format',
        'decimal',
        '--receipt-delay-ms',
        '20',
      ],
      { signal: abort.signal, ready: (p) => (ports = p) },
    );
    h.add(async () => abort.abort());
    const { port, httpPort } = await waitFor(() => ports, 'the simulator to listen');
    const { connector, events } = await h.started(port);

    const outcome = await connector.submit(request('+447700900700', 'via the cli'));
    const [id] = outcome.kind === 'accepted' ? outcome.carrierIds : [];
    expect(id).toMatch(/^\d+$/);
    await waitFor(() => events.receipts.find((r) => r.carrierId === id), 'the receipt');

    const res = await fetch(`http://127.0.0.1:${httpPort}/mo`, {
      method: 'POST',
      body: JSON.stringify({ from: '+447700900799', to: '+447700900001', body: 'posted MO' }),
    });
    expect(res.status).toBe(200);
    expect(events.messages.at(-1)).toMatchObject({ from: '+447700900799', body: 'posted MO' });
    const bad = await fetch(`http://127.0.0.1:${httpPort}/mo`, { method: 'POST', body: '{"from":1}' });
    expect(bad.status).toBe(400);
    const stats = (await (await fetch(`http://127.0.0.1:${httpPort}/stats`)).json()) as Record<
      string,
      number
    >;
    expect(stats).toMatchObject({ binds: 1, submits: 1 });

    await connector.stop();
    abort.abort();
    await running;
  });

  it('refuses bad options', async () => {
    await expect(runSmscSim(['--id-format', 'octal'])).rejects.toBeInstanceOf(UsageError);
    await expect(runSmscSim(['--window', 'many'])).rejects.toBeInstanceOf(UsageError);
    await expect(runSmscSim(['--bogus'])).rejects.toBeInstanceOf(UsageError);
  });
});
