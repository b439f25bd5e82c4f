/**
 * The issue's "done when": Kannel (bearerbox + smsbox, Debian's `kannel`), configured as a
 * customer the way the README's "SMPP for your customers" section says, binds to smsgw's SMPP
 * server: sendsms → smsgw → simulated carrier → receipt → deliver_sm → Kannel's dlr-url; and an
 * inbound message for the account reaches Kannel's sms-service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kannelConfig,
  SENDSMS_USER,
  SMSC_ACCOUNT,
  stopBoxes,
} from '../carriers/smpp/kannel/kannel-config.js';
import { ADMIN, startSmppHarness, waitFor, type SmppServerHarness } from './harness.js';

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const haveKannel = existsSync(BEARERBOX) && existsSync(SMSBOX);
if (!haveKannel) console.warn(`SKIPPED: Kannel interop needs ${BEARERBOX} (apt-get install -y kannel)`);

const SENDSMS = SENDSMS_USER;
const CUSTOMER = SMSC_ACCOUNT;

/** The README's example `smsc` group binding to smsgw: what it sets beyond the shared config. */
const README_SMSC = {
  id: 'smsgw',
  settings: 'source-addr-ton = 1\nsource-addr-npi = 1\ndest-addr-ton = 1\ndest-addr-npi = 1\n',
};

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((ok) => server.close(ok));
  return port;
}

describe.skipIf(!haveKannel)('Kannel as an SMPP customer of smsgw', () => {
  let h: SmppServerHarness;
  let dir = '';
  const boxes: ChildProcess[] = [];
  const hits: URL[] = [];
  const receiver = http.createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', 'http://receiver'));
    res.end('ok');
  });
  let sendsms = '';
  let dlrBase = '';
  let customer: { id: number; key: string };

  const logs = () =>
    ['bearerbox.log', 'smsbox.log']
      .map((f) =>
        existsSync(join(dir, f)) ? `--- ${f}\n${readFileSync(join(dir, f), 'utf8').slice(-3000)}` : '',
      )
      .join('\n');
  const reports = (label: string) =>
    hits
      .filter((u) => u.pathname === '/dlr' && u.searchParams.get('m') === label)
      .map((u) => u.searchParams.get('type'));
  const send = (label: string, to: string, text: string, extra: Record<string, string> = {}) =>
    fetch(
      `${sendsms}?${new URLSearchParams({
        ...SENDSMS,
        from: '447700900001',
        to,
        text,
        charset: 'UTF-8',
        'dlr-mask': '3',
        'dlr-url': `${dlrBase}/dlr?m=${label}&type=%d`,
        ...extra,
      })}`,
    ).then(async (r) => ({ status: r.status, body: await r.text() }));
  const messages = async () =>
    (await h.http('GET', '/v1/sms/messages?sort=-messageID', customer.key)).body.data as {
      messageID: number;
      to: string[];
      body: string;
    }[];

  beforeAll(async () => {
    h = await startSmppHarness('sqlite', { SMSGW_SIM_DELAY_MS: '100' });
    customer = await h.customer(CUSTOMER.systemId, CUSTOMER.password);
    expect(
      (await h.http('POST', `/admin/v1/accounts/${customer.id}/numbers`, ADMIN, { msisdn: '+447700900001' }))
        .status,
    ).toBe(201);
    dir = mkdtempSync(join(tmpdir(), 'smsgw-kannel-customer-'));
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const receiverPort = (receiver.address() as net.AddressInfo).port;
    dlrBase = `http://127.0.0.1:${receiverPort}`;
    const ports = {
      admin: await freePort(),
      smsbox: await freePort(),
      sendsms: await freePort(),
      smsc: h.smppPort,
      receiver: receiverPort,
    };
    const conf = join(dir, 'kannel.conf');
    writeFileSync(conf, kannelConfig(dir, ports, README_SMSC));
    boxes.push(spawn(BEARERBOX, [conf], { stdio: 'ignore' }));
    await waitFor(() => h.server.smpp!.connections() > 0 || undefined, 'Kannel to connect', 20_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}\n${logs()}`);
      },
    );
    boxes.push(spawn(SMSBOX, [conf], { stdio: 'ignore' }));
    sendsms = `http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms`;
    await waitFor(
      () =>
        fetch(sendsms).then(
          () => true,
          () => undefined,
        ),
      'smsbox to start',
      20_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${logs()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await stopBoxes(boxes);
    await new Promise<void>((ok) => receiver.close(() => ok()));
    await h?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('sendsms → smsgw → carrier, and the delivery report reaches Kannel’s dlr-url', async () => {
    const text = 'Hello from Kannel through smsgw';
    const sent = await send('gsm', '447700900501', text);
    expect(sent.status, sent.body).toBe(202);
    const stored = await waitFor(
      async () => (await messages()).find((m) => m.to.includes('+447700900501')),
      'the message in smsgw',
      20_000,
    );
    expect(stored.body).toBe(text);
    await waitFor(
      () => reports('gsm').includes('1') || undefined,
      'a delivered report at the dlr-url',
      20_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${logs()}`);
    });
  });

  it('a UCS-2 text arrives unchanged; a failing number gets a failure report', async () => {
    const text = 'Привет из Kannel 😀';
    expect((await send('ucs2', '447700900502', text, { coding: '2' })).status).toBe(202);
    expect((await send('fail', '447700900505', 'Not going to make it')).status).toBe(202);
    const stored = await waitFor(
      async () => (await messages()).find((m) => m.to.includes('+447700900502')),
      'the UCS-2 message',
      20_000,
    );
    expect(stored.body).toBe(text);
    await waitFor(() => reports('ucs2').includes('1') || undefined, 'the UCS-2 delivered report', 20_000);
    await waitFor(() => reports('fail').includes('2') || undefined, 'a failed report', 20_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}\n${logs()}`);
      },
    );
  });

  it('a long text Kannel splits into UDH parts is one message in smsgw, and is reported delivered', async () => {
    const text = 'Kannel splits this long message into concatenated parts for smsgw. '.repeat(5).trim();
    expect((await send('long', '447700900503', text)).status).toBe(202);
    const stored = await waitFor(
      async () => (await messages()).find((m) => m.to.includes('+447700900503')),
      'the long message',
      20_000,
    );
    expect(stored.body).toBe(text);
    expect((await messages()).filter((m) => m.to.includes('+447700900503'))).toHaveLength(1);
    await waitFor(() => reports('long').includes('1') || undefined, 'the delivered report', 20_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}\n${logs()}`);
      },
    );
  });

  it('an inbound message for the account reaches Kannel’s sms-service', async () => {
    const r = await h.http('POST', '/admin/v1/simulator/inbound', ADMIN, {
      from: '+447700900599',
      to: '+447700900001',
      body: 'Hello Kannel',
    });
    expect(r.status).toBe(201);
    const mo = await waitFor(() => hits.find((u) => u.pathname === '/mo'), 'the MO at sms-service', 20_000);
    expect(mo.searchParams.get('text')).toBe('Hello Kannel');
    expect(mo.searchParams.get('from')).toContain('447700900599');
  });
});
