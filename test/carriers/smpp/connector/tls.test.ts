/** SMPP over TLS: our connector to our simulator with a throwaway self-signed certificate. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, request, waitFor } from '../helpers.js';

const haveOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!haveOpenssl)
  console.warn('SKIPPED: the SMPP-over-TLS test needs the openssl binary to make a certificate');

describe.skipIf(!haveOpenssl)('connector ↔ smsc-sim over TLS', () => {
  const h = new Harness();
  let dir = '';
  let key: Buffer;
  let cert: Buffer;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'smsgw-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    key = readFileSync(join(dir, 'key.pem'));
    cert = readFileSync(join(dir, 'cert.pem'));
  });
  afterAll(async () => {
    await h.stopAll();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('binds, submits and gets the receipt when the certificate is trusted', async () => {
    const sim = await h.sim({ tls: { key, cert }, receiptDelayMs: 20 });
    const { connector, events } = await h.started(sim.port, { tls: { ca: cert } });
    expect(connector.state().bound).toBe(true);
    const outcome = await connector.submit(request('+447700900900', 'over TLS'));
    const [id] = outcome.kind === 'accepted' ? outcome.carrierIds : [];
    await waitFor(() => events.receipts.find((r) => r.carrierId === id), 'the receipt');
  });

  it('does not bind to a server whose certificate it cannot verify', async () => {
    const sim = await h.sim({ tls: { key, cert } });
    const { connector } = await h.started(sim.port, { tls: true });
    expect(connector.state().bound).toBe(false);
    expect(connector.state().lastError?.detail).toMatch(/certificate/i);
    expect(sim.stats.binds).toBe(0);
  });
});
