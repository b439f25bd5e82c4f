import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCarrier } from '../../src/carriers/connector.js';
import type { Router } from '../../src/carriers/routing/router.js';
import { createSmscSimulator, type SmscSimulator } from '../../src/carriers/smpp/smsc/index.js';
import { call } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';
import { createEngineHarness, type EngineHarness } from '../helpers/engine.js';

const logger = pino({ level: 'silent' });
const FINAL = ['delivered', 'cancelled', 'expired', 'aborted', 'rejected', 'failed', 'deleted', 'unknown'];
const settled = (s: { to: Record<string, string> }) => Object.values(s.to).every((v) => FINAL.includes(v));

async function addConnector(
  h: EngineHarness,
  name: string,
  port: number,
  extra: Record<string, unknown> = {},
) {
  await h.store.connectors.create(
    {
      name,
      host: '127.0.0.1',
      port,
      systemId: 'smsgw',
      password: 'secret',
      systemType: '',
      bindMode: 'transceiver',
      tls: false,
      window: 10,
      throughput: 0,
      sourceTon: null,
      sourceNpi: null,
      destTon: 1,
      destNpi: 1,
      defaultDataCoding: 0,
      concatenation: 'udh8',
      requestReceipts: true,
      enabled: true,
      ...extra,
    },
    Date.now(),
  );
}

describe.each(ENGINES)('SMSGW_CARRIER=smpp through the API to smsc-sim on %s', (engineName) => {
  let h: EngineHarness;
  let router: Router;
  let smsc: SmscSimulator;
  let backup: SmscSimulator;
  const bound = (name: string) => () =>
    Promise.resolve(Boolean((router.states()[name] as { bound?: boolean } | undefined)?.bound));

  beforeAll(async () => {
    smsc = await createSmscSimulator({ receiptDelayMs: 100, logger });
    backup = await createSmscSimulator({ receiptDelayMs: 100, logger });
    h = await createEngineHarness(engineName, {
      env: { SMSGW_CARRIER: 'smpp' },
      retryDelay: (n) => (n < 20 ? 200 : null),
      connector: (t) => {
        const carrier = createCarrier(t.config, t.store, logger, () => Date.now(), 'smpp-test-node');
        router = carrier.router!;
        return carrier.connector;
      },
    });
    await addConnector(h, 'primary', smsc.port);
    await addConnector(h, 'backup', backup.port);
    await h.store.connectors.addRoute({ prefix: '+61', connector: 'primary', priority: 0 }, Date.now());
    await h.store.connectors.addRoute({ prefix: '+61', connector: 'backup', priority: 1 }, Date.now());
    await router.reload();
    await h.until(bound('primary'), Boolean);
    await h.until(bound('backup'), Boolean);
  });
  afterAll(async () => {
    await h.stop();
    await smsc.close();
    await backup.close();
  });

  it('every simulated outcome arrives through SMPP receipts', async () => {
    const to = Array.from({ length: 10 }, (_, d) => `+6149157016${d}`);
    const id = await h.send({ to });
    const s = await h.until(() => h.status(id), settled);
    expect(Object.values(s.to)).toEqual([
      'delivered',
      'delivered',
      'delivered',
      'delivered',
      'delivered',
      'failed',
      'rejected',
      'expired',
      'deleted',
      'unknown',
    ]);
    // Each destination reached the SMSC exactly once (the rejected one's submit was refused).
    for (const msisdn of to) {
      expect(
        smsc.stats.submits.filter((r) => `+${r.destination.replace(/^\+/, '')}` === msisdn),
      ).toHaveLength(1);
    }
  });

  it('a 3-part message goes as 3 submits and is delivered when every part is', async () => {
    const body = 'Long message '.repeat(30); // 390 GSM characters
    const id = await h.send({ to: ['+61491570171'], body });
    const s = await h.until(() => h.status(id), settled);
    expect(s.to['+61491570171']).toBe('delivered');
    expect(s.num_parts).toBe(3);
    const parts = smsc.stats.submits.filter((r) => r.destination.endsWith('61491570171'));
    expect(parts).toHaveLength(3);
    expect(parts.map((p) => p.text).join('')).toBe(body);
  });

  it('MO messages are reassembled and stored for the number’s account', async () => {
    const { account, key } = await h.newAccount();
    await h.store.accounts.addNumber({
      accountId: account.id,
      msisdn: '+61491570999',
      ref: 'support',
      inboundUrl: null,
      createdAt: Date.now(),
    });
    const text = 'An inbound reply that is long enough to need several parts. '.repeat(4);
    expect(await smsc.injectMo('+61400000001', '+61491570999', text)).toBe(true);
    const list = await h.until(
      () => call(h, 'GET', '/v1/sms/inbound', undefined, key),
      (r) => r.body.data?.length === 1,
    );
    expect(list.body.data[0]).toMatchObject({
      from: '+61400000001',
      to: '+61491570999',
      body: text,
      ref: 'support',
    });
  });

  it('fails over to the backup when the primary SMSC goes away, and loses nothing', async () => {
    const before = backup.stats.submits.length;
    const port = smsc.port;
    await smsc.close();
    await h.until(bound('primary'), (b) => !b);
    const id = await h.send({ to: ['+61491570181', '+61491570182'] });
    const s = await h.until(() => h.status(id), settled);
    expect(Object.values(s.to)).toEqual(['delivered', 'delivered']);
    expect(backup.stats.submits.length - before).toBe(2);
    // The primary comes back on its address and the connector rebinds.
    smsc = await createSmscSimulator({ port, receiptDelayMs: 100, logger });
    await h.until(bound('primary'), Boolean, 60_000);
  });

  it('when every route is down, recipients wait and go out after the SMSC returns', async () => {
    const port = smsc.port;
    const backupPort = backup.port;
    await smsc.close();
    await backup.close();
    await h.until(bound('primary'), (b) => !b);
    await h.until(bound('backup'), (b) => !b);
    const id = await h.send({ to: ['+61491570191'] });
    await new Promise((r) => setTimeout(r, 500));
    expect((await h.status(id)).to['+61491570191']).toBe('submitted');
    smsc = await createSmscSimulator({ port, receiptDelayMs: 100, logger });
    backup = await createSmscSimulator({ port: backupPort, receiptDelayMs: 100, logger });
    const s = await h.until(() => h.status(id), settled, 60_000);
    expect(s.to['+61491570191']).toBe('delivered');
  });

  it('ESME_RTHROTTLED slows down and retries until everything is sent', async () => {
    const throttled = await createSmscSimulator({ receiptDelayMs: 50, throughput: 5, logger });
    try {
      await addConnector(h, 'slow', throttled.port);
      await h.store.connectors.addRoute({ prefix: '+4477009', connector: 'slow', priority: 0 }, Date.now());
      await router.reload();
      await h.until(bound('slow'), Boolean);
      const to = Array.from({ length: 15 }, (_, i) => `+447700900${String(100 + i * 10)}`);
      const id = await h.send({ to });
      const s = await h.until(() => h.status(id), settled, 60_000);
      expect(s.status.delivered).toBe(15);
      expect(throttled.stats.throttled).toBeGreaterThan(0);
    } finally {
      await throttled.close();
    }
  });

  it('a destination no route matches is aborted', async () => {
    const id = await h.send({ to: ['+12025550123'] });
    const s = await h.until(() => h.status(id), settled);
    expect(s.to['+12025550123']).toBe('aborted');
  });
});
