/**
 * Kannel (bearerbox + smsbox, Debian package `kannel`) against our simulator: texts sent
 * through smsbox's sendsms arrive as the right submits, Kannel's delivery reports come back
 * from our receipts, and an MO from our simulator reaches Kannel's sms-service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmscSimulator } from '../../../../src/carriers/smpp/smsc/index.js';
import { Harness, waitFor } from '../helpers.js';
import { kannelConfig, SENDSMS_USER, SMSC_ACCOUNT, stopBoxes } from './kannel-config.js';

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const haveKannel = existsSync(BEARERBOX) && existsSync(SMSBOX);
if (!haveKannel) console.warn(`SKIPPED: Kannel interop needs ${BEARERBOX} (apt-get install -y kannel)`);

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((ok) => server.close(ok));
  return port;
}

/** What Kannel calls back with: delivery reports (dlr-url) and MO (sms-service get-url). */
function receiver() {
  const hits: URL[] = [];
  const server = http.createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', 'http://receiver'));
    res.end('ok');
  });
  return { hits, server };
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

describe.skipIf(!haveKannel)('Kannel bearerbox/smsbox ↔ our smsc-sim', () => {
  const h = new Harness();
  let dir = '';
  const boxes: ChildProcess[] = [];
  const callbacks = receiver();
  let sim: SmscSimulator;
  let sendsms = '';
  let dlrBase = '';

  const send = async (label: string, to: string, text: string, extra: Record<string, string> = {}) => {
    const query = new URLSearchParams({
      ...SENDSMS_USER,
      from: '447700900001',
      to,
      text,
      charset: 'UTF-8',
      'dlr-mask': '31',
      'dlr-url': `${dlrBase}/dlr?m=${label}&type=%d&id=%F`,
      ...extra,
    });
    return get(`${sendsms}?${query}`);
  };
  const reports = (label: string) =>
    callbacks.hits
      .filter((u) => u.pathname === '/dlr' && u.searchParams.get('m') === label)
      .map((u) => u.searchParams.get('type'));

  const logsOnFailure = () =>
    ['bearerbox.log', 'smsbox.log']
      .map((f) =>
        existsSync(join(dir, f)) ? `--- ${f}\n${readFileSync(join(dir, f), 'utf8').slice(-3000)}` : '',
      )
      .join('\n');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'smsgw-kannel-'));
    sim = await h.sim({ ...SMSC_ACCOUNT, receiptDelayMs: 100 });
    await new Promise<void>((ok) => callbacks.server.listen(0, '127.0.0.1', ok));
    h.add(() => new Promise<void>((ok) => callbacks.server.close(() => ok())));
    const receiverPort = (callbacks.server.address() as net.AddressInfo).port;
    dlrBase = `http://127.0.0.1:${receiverPort}`;
    const ports = {
      admin: await freePort(),
      smsbox: await freePort(),
      sendsms: await freePort(),
      smsc: sim.port,
      receiver: receiverPort,
    };
    const conf = join(dir, 'kannel.conf');
    writeFileSync(conf, kannelConfig(dir, ports));
    for (const bin of [BEARERBOX, SMSBOX]) {
      const child = spawn(bin, [conf], { stdio: 'ignore' });
      boxes.push(child);
      if (bin === BEARERBOX)
        await waitFor(
          () => sim.stats.binds >= 1,
          () => `Kannel to bind\n${logsOnFailure()}`,
          20_000,
        );
    }
    sendsms = `http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms`;
    // smsbox answers once it is connected to bearerbox.
    for (const deadline = Date.now() + 20_000; ;) {
      const status = await get(sendsms).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 0) break;
      if (Date.now() > deadline) throw new Error(`smsbox did not start\n${logsOnFailure()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  afterAll(async () => {
    await stopBoxes(boxes);
    await h.stopAll();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a GSM text: one submit with the same text, then a delivered report', async () => {
    const text = 'Hello from Kannel, plain GSM text.';
    const res = await send('gsm', '447700900501', text);
    expect(res.status, res.body).toBe(202);
    await waitFor(() => sim.stats.submitCount('447700900501') === 1, 'the submit', 15_000);
    expect(sim.stats.submits.find((s) => s.destination === '447700900501')).toMatchObject({
      dataCoding: 0,
      text,
    });
    await waitFor(
      () => reports('gsm').includes('1'),
      () => `a delivered report\n${logsOnFailure()}`,
      15_000,
    );
  });

  it('a UCS-2 text (coding=2): data_coding 8, the same text, delivered', async () => {
    const text = 'Привет из Kannel — ελληνικά 😀';
    const res = await send('ucs2', '447700900502', text, { coding: '2' });
    expect(res.status, res.body).toBe(202);
    await waitFor(() => sim.stats.submitCount('447700900502') === 1, 'the submit', 15_000);
    expect(sim.stats.submits.find((s) => s.destination === '447700900502')).toMatchObject({
      dataCoding: 8,
      text,
    });
    await waitFor(
      () => reports('ucs2').includes('1'),
      () => `a delivered report\n${logsOnFailure()}`,
      15_000,
    );
  });

  it('a long text: 3 UDH parts that join to the text, delivered', async () => {
    const text = 'Kannel splits this long message into three concatenated parts. '.repeat(6).trim();
    const res = await send('long', '447700900503', text);
    expect(res.status, res.body).toBe(202);
    await waitFor(() => sim.stats.submitCount('447700900503') === 3, '3 parts', 15_000);
    const parts = sim.stats.submits.filter((s) => s.destination === '447700900503');
    expect(parts.map((p) => p.concat?.seq)).toEqual([1, 2, 3]);
    expect(sim.stats.texts('447700900503')).toEqual([text]);
    await waitFor(
      () => reports('long').includes('1'),
      () => `a delivered report\n${logsOnFailure()}`,
      15_000,
    );
  });

  it('an undeliverable number: Kannel reports failure (type 2)', async () => {
    await send('undeliv', '447700900505', 'Not going to make it');
    await waitFor(
      () => reports('undeliv').includes('2'),
      () => `a failed report\n${logsOnFailure()}`,
      15_000,
    );
  });

  it('an MO from the simulator reaches Kannel’s sms-service, long ones reassembled', async () => {
    expect(await sim.injectMo('+447700900599', '+447700900001', 'Hello Kannel')).toBe(true);
    const long = 'An inbound message long enough to need two parts. '.repeat(4).trim();
    expect(await sim.injectMo('+447700900599', '+447700900001', long)).toBe(true);
    const mo = () =>
      callbacks.hits.filter((u) => u.pathname === '/mo').map((u) => u.searchParams.get('text'));
    await waitFor(
      () => mo().length >= 2,
      () => `both MOs\n${logsOnFailure()}`,
      15_000,
    );
    expect(mo()).toEqual(['Hello Kannel', long]);
  });
});
