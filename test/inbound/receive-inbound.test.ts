import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from 'pino';
import { addNumber } from '../../src/app/directory.js';
import {
  receiveInbound,
  type InboundWebhookDue,
  type ReceiveInboundDeps,
} from '../../src/app/receive-inbound.js';
import type { CarrierEvents } from '../../src/carriers/port.js';
import type { Account } from '../../src/store/port.js';
import { call, createTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/engines.js';

interface LogLine {
  readonly level: 'info' | 'warn';
  readonly fields: Record<string, unknown>;
  readonly msg: string;
}

function recordingLogger() {
  const lines: LogLine[] = [];
  const logger = {
    info: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'info', fields, msg }),
    warn: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', fields, msg }),
  } as unknown as Pick<Logger, 'info' | 'warn'>;
  return { lines, logger };
}

describe.each(ENGINES)('receiveInbound on %s', (engine) => {
  let t: TestApp;
  let plain: { account: Account; key: string };
  let hooked: { account: Account; key: string };
  const log = recordingLogger();
  const deps = (extra: Partial<ReceiveInboundDeps> = {}): ReceiveInboundDeps => ({
    store: t.store,
    now: () => t.clock.now,
    logger: log.logger,
    ...extra,
  });
  const rows = () => t.db.conn.db.selectFrom('inbound_messages').selectAll().orderBy('id').execute();
  const at = Date.parse('2026-11-21T11:59:58.250Z');

  beforeAll(async () => {
    t = await createTestApp(engine);
    plain = await t.newAccount();
    hooked = await t.newAccount({ inboundUrl: 'https://hooks.example.com/account' });
    await addNumber(t.store, plain.account, { msisdn: '+61491570900', ref: 'support' }, t.clock.now);
    await addNumber(
      t.store,
      plain.account,
      { msisdn: '+61491570901', inboundUrl: 'https://hooks.example.com/number' },
      t.clock.now,
    );
    await addNumber(t.store, hooked.account, { msisdn: '+61491570902', ref: 'sales' }, t.clock.now);
    await addNumber(
      t.store,
      hooked.account,
      { msisdn: '+61491570903', inboundUrl: 'https://hooks.example.com/override' },
      t.clock.now,
    );
  });
  afterAll(async () => t.close());

  it('routes by the to number: its account and ref, numbers normalised to +', async () => {
    const r = await receiveInbound(deps(), {
      from: '61491570150',
      to: '61491570900',
      body: 'Hi there',
      receivedAt: at,
      connector: 'smpp-main',
    });
    expect(r).toEqual({ messageID: expect.any(Number), accountID: plain.account.id });
    const row = (await rows()).find((x) => x.id === r.messageID)!;
    expect(row).toMatchObject({
      account_id: plain.account.id,
      sender: '+61491570150',
      recipient: '+61491570900',
      body: 'Hi there',
      ref: 'support',
      received_at: at,
      created_at: t.clock.now,
      connector: 'smpp-main',
    });
    expect(row.number_id).toEqual(expect.any(Number));
  });

  it('no webhook URL anywhere: completed at once', async () => {
    const r = await receiveInbound(deps(), {
      from: '+61491570150',
      to: '+61491570900',
      body: 'x',
      receivedAt: at,
    });
    const row = (await rows()).find((x) => x.id === r.messageID)!;
    expect(row.completed_at).toBe(t.clock.now);
  });

  it('a URL is due: left open, with its webhook queued in the same commit by default', async () => {
    const r = await receiveInbound(deps(), {
      from: '+61491570150',
      to: '+61491570901',
      body: 'x',
      receivedAt: at,
    });
    const row = (await rows()).find((x) => x.id === r.messageID)!;
    expect(row.completed_at).toBeNull();
    expect(row.ref).toBeNull();
    const queued = await t.db.conn.db
      .selectFrom('webhook_deliveries')
      .select(['kind', 'message_id', 'state'])
      .where('message_id', '=', r.messageID)
      .where('kind', '=', 'inbound')
      .execute();
    expect(queued).toEqual([{ kind: 'inbound', message_id: r.messageID, state: 'pending' }]);
  });

  it('hands the due webhook to the hook: the number URL first, else the account URL', async () => {
    const due: InboundWebhookDue[] = [];
    const hook = async (_tx: unknown, inbound: InboundWebhookDue) => {
      due.push(inbound);
    };
    const a = await receiveInbound(deps({ onInboundStored: hook }), {
      from: '+61491570150',
      to: '+61491570901',
      body: 'number url',
      receivedAt: at,
    });
    const b = await receiveInbound(deps({ onInboundStored: hook }), {
      from: '+61491570150',
      to: '+61491570902',
      body: 'account url',
      receivedAt: at,
    });
    const c = await receiveInbound(deps({ onInboundStored: hook }), {
      from: '+61491570150',
      to: '+61491570903',
      body: 'number overrides account',
      receivedAt: at,
    });
    // Neither URL: no webhook, so no hook call.
    await receiveInbound(deps({ onInboundStored: hook }), {
      from: '+61491570150',
      to: '+61491570900',
      body: 'none',
      receivedAt: at,
    });
    expect(due).toEqual([
      { id: a.messageID, accountId: plain.account.id, url: 'https://hooks.example.com/number' },
      { id: b.messageID, accountId: hooked.account.id, url: 'https://hooks.example.com/account' },
      { id: c.messageID, accountId: hooked.account.id, url: 'https://hooks.example.com/override' },
    ]);
    for (const id of [a.messageID, b.messageID, c.messageID]) {
      expect((await rows()).find((x) => x.id === id)!.completed_at).toBeNull();
    }
  });

  it('runs the hook inside the insert transaction: its writes commit with the message, or neither does', async () => {
    const queued = await receiveInbound(
      deps({
        onInboundStored: async (tx, inbound) => {
          await tx
            .insertInto('outbox')
            .values({
              kind: 'test_inbound_webhook',
              subject_id: inbound.id,
              account_id: inbound.accountId,
              run_at: t.clock.now,
              created_at: t.clock.now,
            })
            .execute();
        },
      }),
      { from: '+61491570150', to: '+61491570902', body: 'queued', receivedAt: at },
    );
    const jobs = await t.db.conn.db
      .selectFrom('outbox')
      .select(['subject_id', 'account_id'])
      .where('kind', '=', 'test_inbound_webhook')
      .execute();
    expect(jobs).toEqual([{ subject_id: queued.messageID, account_id: hooked.account.id }]);

    const before = (await rows()).length;
    await expect(
      receiveInbound(
        deps({
          onInboundStored: async (tx, inbound) => {
            await tx
              .insertInto('outbox')
              .values({
                kind: 'test_inbound_webhook',
                subject_id: inbound.id,
                account_id: inbound.accountId,
                run_at: t.clock.now,
                created_at: t.clock.now,
              })
              .execute();
            throw new Error('queue unavailable');
          },
        }),
        { from: '+61491570150', to: '+61491570902', body: 'rolled back', receivedAt: at },
      ),
    ).rejects.toThrow('queue unavailable');
    expect(await rows()).toHaveLength(before);
    const after = await t.db.conn.db
      .selectFrom('outbox')
      .select('id')
      .where('kind', '=', 'test_inbound_webhook')
      .execute();
    expect(after).toHaveLength(1);
  });

  it('an unknown to number is stored unrouted with a warning, not lost, and read by nobody', async () => {
    log.lines.length = 0;
    let hookCalls = 0;
    const r = await receiveInbound(
      deps({
        onInboundStored: async () => {
          hookCalls += 1;
        },
      }),
      { from: '+61491570150', to: '+61491570999', body: 'lost?', receivedAt: at },
    );
    expect(r.accountID).toBeNull();
    expect(hookCalls).toBe(0);
    const row = (await rows()).find((x) => x.id === r.messageID)!;
    expect(row).toMatchObject({ account_id: null, number_id: null, recipient: '+61491570999', ref: null });
    expect(row.completed_at).toBe(t.clock.now);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        fields: expect.objectContaining({ inboundID: r.messageID, to: '+61491570999' }),
        msg: expect.stringContaining('no account'),
      },
    ]);
    for (const key of [t.key, plain.key, hooked.key]) {
      expect((await call(t, 'GET', `/v1/sms/inbound/${r.messageID}`, undefined, key)).status).toBe(404);
      const list = await call(t, 'GET', '/v1/sms/inbound?created_at.min=0', undefined, key);
      expect(list.body.data.map((m: { messageID: number }) => m.messageID)).not.toContain(r.messageID);
    }
  });

  it('keeps carrier addresses that are not msisdns as given', async () => {
    const r = await receiveInbound(deps(), { from: 'MyBank', to: '1234', body: 'code 42', receivedAt: at });
    expect(r.accountID).toBeNull();
    const row = (await rows()).find((x) => x.id === r.messageID)!;
    expect(row).toMatchObject({ sender: 'MyBank', recipient: '1234' });
  });

  it('serves as the engine’s inbound carrier event, concurrent deliveries included', async () => {
    const events: Pick<CarrierEvents, 'inbound'> = {
      inbound: async (message) => {
        await receiveInbound(deps(), { ...message, connector: 'simulator' });
      },
    };
    const before = (await rows()).length;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        events.inbound({ from: '+61491570150', to: '+61491570900', body: `burst ${i}`, receivedAt: at + i }),
      ),
    );
    const after = await rows();
    expect(after).toHaveLength(before + 20);
    expect(new Set(after.map((r) => r.id)).size).toBe(after.length);
  });
});
