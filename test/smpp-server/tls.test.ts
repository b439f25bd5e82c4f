/** The SMPP server over TLS (SMSGW_SMPP_SERVER_TLS_CERT/_KEY), with a throwaway certificate. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdu } from '../../src/carriers/smpp/pdu/index.js';
import { Link } from '../../src/carriers/smpp/session/index.js';
import { startSmppHarness, type SmppServerHarness } from './harness.js';

const haveOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!haveOpenssl) console.warn('SKIPPED: the SMPP-server TLS test needs the openssl binary');

describe.skipIf(!haveOpenssl)('SMPP server over TLS', () => {
  let dir = '';
  let h: SmppServerHarness;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'smsgw-smpp-tls-'));
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
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    h = await startSmppHarness('sqlite', {
      SMSGW_SMPP_SERVER_TLS_CERT: join(dir, 'cert.pem'),
      SMSGW_SMPP_SERVER_TLS_KEY: join(dir, 'key.pem'),
    });
    await h.customer('secure', 'pw');
  });
  afterAll(async () => {
    await h?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('binds and submits over TLS with a trusted certificate', async () => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: h.smppPort,
      ca: readFileSync(join(dir, 'cert.pem')),
    });
    await new Promise<void>((ok, fail) => socket.once('secureConnect', ok).once('error', fail));
    const link = new Link(socket, {
      logger: pino({ level: 'silent' }),
      enquireLinkMs: 0,
      responseTimeoutMs: 5000,
      onRequest: () => {},
    });
    const bound = await link.request(
      makePdu('bind_transmitter', { sequenceNumber: 0, systemId: 'secure', password: 'pw' }),
      5000,
    );
    expect(bound.kind === 'response' && bound.pdu.commandStatus).toBe(0);
    const submitted = await link.request(
      makePdu('submit_sm', {
        sequenceNumber: 0,
        sourceAddr: 'Shop',
        destinationAddr: '447700900401',
        shortMessage: Buffer.from('tls'),
      }),
      5000,
    );
    expect(
      submitted.kind === 'response' && submitted.pdu.command === 'submit_sm_resp' && submitted.pdu.messageId,
    ).toMatch(/^\d+$/);
    await link.end('done');
  });

  it('a plain-TCP client does not get a session, and the server keeps serving', async () => {
    const net = await import('node:net');
    const plain = net.connect(h.smppPort, '127.0.0.1');
    plain.on('error', () => {});
    plain.write(Buffer.from('not tls at all'));
    await new Promise<void>((ok) => plain.once('close', () => ok()));
    const socket = tls.connect({
      host: '127.0.0.1',
      port: h.smppPort,
      ca: readFileSync(join(dir, 'cert.pem')),
    });
    await new Promise<void>((ok, fail) => socket.once('secureConnect', ok).once('error', fail));
    socket.destroy();
  });
});
