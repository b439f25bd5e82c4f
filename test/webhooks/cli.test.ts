import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../src/app/accounts.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { UsageError } from '../../src/cli/context.js';
import { runCli } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config/config.js';
import { ConflictError, NotFoundError } from '../../src/domain/errors.js';
import { startServer } from '../../src/server.js';
import type { Store } from '../../src/store/port.js';
import { createStore } from '../../src/store/store.js';
import { insertDeliveriesIn } from '../../src/store/webhooks.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { printedBy } from '../helpers/cli.js';

/**
 * `smsgw webhooks list|replay` on a database with no server running, as an operator would use
 * them after a receiver's outage: find what was given up on, queue it again, see it sent.
 */
describe.each(ENGINES)('smsgw webhooks on %s', (engine) => {
  let db: TestDatabase;
  let store: Store;
  let accountId: number;
  let output = '';
  beforeAll(async () => {
    db = await createTestDatabase(engine);
    store = createStore(db.conn);
    ({
      account: { id: accountId },
    } = await createAccount(store, { name: 'cli-hooks', anySender: true }, 0));
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => db.drop());

  const config = () => loadConfig({ SMSGW_DATABASE_URL: db.url, SMSGW_LOG_LEVEL: 'silent' });

  /** Runs `smsgw <name> …argv` against the test database, returning what it printed. */
  const run = async (name: string, argv: string[]) => {
    const command = COMMANDS[name];
    if (!command) throw new Error(`no command ${name}`);
    output = await printedBy(() => command.run(argv, config()));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return JSON.parse(output) as any;
  };

  /**
   * Queues one delivery report for `messageId` to `url` and takes it through one attempt with
   * the store's own claim and record, answered with `status`.
   */
  async function attempted(messageId: number, url: string, status: number) {
    const now = Date.now();
    await db.conn.db
      .transaction()
      .execute((tx) =>
        insertDeliveriesIn(
          tx,
          [{ accountId, kind: 'delivery_report', messageId, url, payload: `{"messageID":${messageId}}` }],
          now,
        ),
      );
    const { deliveries } = await store.engine.tick((ops) =>
      ops.claimWebhooks({
        worker: 'cli-test',
        now,
        limit: 10,
        perOrigin: () => 10,
        held: new Map(),
        after: null,
      }),
    );
    const claimed = deliveries.find((d) => d.messageId === messageId)!;
    await store.engine.tick((ops) =>
      ops.recordWebhookAttempts(
        'cli-test',
        [
          {
            delivery: claimed,
            attempt: { attemptedAt: now, durationMs: 3, status, error: null, responseExcerpt: 'no' },
            next: status < 300 ? { kind: 'delivered' } : { kind: 'failed' },
          },
        ],
        now,
      ),
    );
    return claimed;
  }

  it('has a usage line for each command', () => {
    expect(COMMANDS['webhooks list']?.usage).toContain('smsgw webhooks list');
    expect(COMMANDS['webhooks replay']?.usage).toContain('smsgw webhooks replay DELIVERY_ID');
  });

  it('lists deliveries with their attempts, newest first, with the API filters', async () => {
    const given = await attempted(101, 'https://hooks.example.net/a', 410);
    const taken = await attempted(102, 'https://hooks.example.net/a', 200);

    const all = await run('webhooks list', []);
    expect(all.more_results).toBe(false);
    expect(all.data.map((d: { deliveryID: number }) => d.deliveryID)).toEqual([
      taken.deliveryId,
      given.deliveryId,
    ]);
    expect(all.data[1]).toMatchObject({
      webhook_id: given.webhookId,
      kind: 'delivery_report',
      messageID: 101,
      url: 'https://hooks.example.net/a',
      state: 'failed',
      next_attempt_at: null,
      attempts: [{ status: 410, duration_ms: 3, error: null, response_excerpt: 'no' }],
    });

    expect((await run('webhooks list', ['--state', 'failed'])).data).toHaveLength(1);
    expect((await run('webhooks list', ['--message', '102'])).data[0].state).toBe('delivered');
    expect((await run('webhooks list', ['--kind', 'inbound'])).data).toEqual([]);
    const page = await run('webhooks list', ['--limit', '1', '--offset', '0']);
    expect(page.data).toHaveLength(1);
    expect(page.more_results).toBe(true);
  });

  it('refuses a malformed filter, naming the option', async () => {
    await expect(run('webhooks list', ['--state', 'lost'])).rejects.toThrow(UsageError);
    await expect(run('webhooks list', ['--state', 'lost'])).rejects.toThrow(/--state must be one of/);
    await expect(run('webhooks list', ['--message', 'x'])).rejects.toThrow(
      /--message must be a whole number/,
    );
    await expect(run('webhooks list', ['--since', '1'])).rejects.toThrow(UsageError);
  });

  it('replays a given-up delivery, which a server started later sends with the same webhook-id', async () => {
    const given = await attempted(201, 'http://127.0.0.1:1/unused', 400);
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    // Point the stored delivery at the live receiver: the outage is over.
    await db.conn.db
      .updateTable('webhook_deliveries')
      .set({ url, origin: new URL(url).origin })
      .where('id', '=', given.deliveryId)
      .execute();

    const replayed = await run('webhooks replay', [String(given.deliveryId)]);
    expect(replayed).toMatchObject({
      deliveryID: given.deliveryId,
      webhook_id: given.webhookId,
      state: 'pending',
      completed_at: null,
      next_attempt_at: expect.any(String),
    });
    expect(replayed.attempts).toHaveLength(1);
    await expect(run('webhooks replay', [String(given.deliveryId)])).rejects.toThrow(ConflictError);
    await expect(run('webhooks replay', ['999999'])).rejects.toThrow(NotFoundError);
    await expect(run('webhooks replay', ['abc'])).rejects.toThrow(UsageError);
    await expect(run('webhooks replay', [])).rejects.toThrow(UsageError);

    const server = await startServer(
      loadConfig({
        SMSGW_DATABASE_URL: db.url,
        SMSGW_PORT: '0',
        SMSGW_LOG_LEVEL: 'silent',
        SMSGW_WEBHOOK_ALLOW_PRIVATE: 'true',
      }),
      pino({ level: 'silent' }),
    );
    try {
      const deadline = Date.now() + 10_000;
      let state = '';
      while (state !== 'delivered' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        state = (await store.webhooks.get(given.deliveryId))!.state;
      }
      expect(state).toBe('delivered');
    } finally {
      await server.stop();
      await new Promise((resolve) => hook.close(resolve));
    }
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['webhook-id']).toBe(given.webhookId);
    expect(received[0]!.body).toBe('{"messageID":201}');
    const listed = await run('webhooks list', ['--message', '201']);
    expect(listed.data[0].attempts.map((a: { status: number }) => a.status)).toEqual([400, 200]);
  });

  it('exits 1 with the reason when a delivery cannot be replayed, 0 with --help', async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr.push(String(chunk));
      return true;
    });
    const stdout: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      stdout.push(String(chunk));
      return true;
    });
    vi.stubEnv('SMSGW_DATABASE_URL', db.url);
    vi.stubEnv('SMSGW_LOG_LEVEL', 'silent');
    const delivered = await attempted(301, 'https://hooks.example.net/b', 204);
    expect(await runCli(['webhooks', 'replay', String(delivered.deliveryId)])).toBe(1);
    expect(stderr.join('')).toContain('Only a failed delivery can be replayed; this one is delivered');
    expect(await runCli(['webhooks', 'list', '--help'])).toBe(0);
    expect(stdout.join('')).toContain('Usage: smsgw webhooks list [--message MESSAGE_ID]');
    vi.unstubAllEnvs();
  });
});
