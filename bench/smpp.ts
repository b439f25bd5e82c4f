import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { pino } from 'pino';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { startServer } from '../src/server.js';
import { createBenchDatabase, ENGINES, type BenchDatabase, type Engine } from './lib/database.js';
import { progress } from './lib/progress.js';
import { count, seconds } from './lib/stats.js';
import { table } from './lib/table.js';

const HELP = `Usage: npm run bench -- smpp [--engine sqlite|postgres|both] [--recipients N] [--window N]

Sends N single-part recipients (default 100,000, all to numbers the simulator delivers)
through the API → our SMPP connector → smsgw smsc-sim (its own process, window 100), and reports
recipients/s to 'sent' and to 'delivered'. Target: >= 5,000/s.
`;

async function openCounter(db: BenchDatabase) {
  const sentSql = `select count(*) n from recipients where sent_at is not null`;
  const deliveredSql = `select count(*) n from recipients where status = 'delivered'`;
  const attemptsSql = `select count(*) n from submit_attempts`;
  if (db.engine === 'sqlite') {
    const raw = new BetterSqlite3(db.location, { readonly: true });
    const sent = raw.prepare(sentSql);
    const delivered = raw.prepare(deliveredSql);
    const attempts = raw.prepare(attemptsSql);
    return {
      attempts: async () => (attempts.get() as { n: number }).n,
      sent: async () => (sent.get() as { n: number }).n,
      delivered: async () => (delivered.get() as { n: number }).n,
      close: async () => raw.close(),
    };
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return {
    attempts: async () => Number((await client.query(attemptsSql)).rows[0].n),
    sent: async () => Number((await client.query(sentSql)).rows[0].n),
    delivered: async () => Number((await client.query(deliveredSql)).rows[0].n),
    close: () => client.end(),
  };
}

/**
 * `smsgw smsc-sim` in its own process, as a user runs it: the SMSC's work then gets the second
 * core instead of sharing the gateway's event loop.
 */
async function startSmscProcess() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'smsc-sim',
      '--port',
      String(port),
      '--receipt-delay-ms',
      '0',
      '--log-level',
      'warn',
    ],
    { cwd: resolve(import.meta.dirname, '..'), stdio: ['ignore', 'ignore', 'inherit'] },
  );
  for (const deadline = Date.now() + 30_000; ;) {
    const open = await new Promise<boolean>((ok) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        ok(true);
      });
      socket.on('error', () => ok(false));
    });
    if (open) break;
    if (Date.now() > deadline) throw new Error('smsc-sim did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, port };
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((ok) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => ok(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function runOne(engine: Engine, recipients: number, window: number) {
  const db = await createBenchDatabase(engine);
  const smsc = await startSmscProcess();
  const key = 'bench-smpp-key';
  const server = await startServer(
    loadConfig({
      SMSGW_DATABASE_URL: db.url,
      SMSGW_PORT: '0',
      SMSGW_BOOTSTRAP_KEY: key,
      SMSGW_CARRIER: 'smpp',
      SMSGW_LOG_LEVEL: 'warn',
    }),
    pino({ level: 'warn' }),
  );
  await server.store.connectors.create(
    {
      name: 'bench',
      host: '127.0.0.1',
      port: smsc.port,
      systemId: 'smsgw',
      password: 'bench',
      systemType: '',
      bindMode: 'transceiver',
      tls: false,
      window,
      throughput: 0,
      sourceTon: null,
      sourceNpi: null,
      destTon: 1,
      destNpi: 1,
      defaultDataCoding: 0,
      concatenation: 'udh8',
      requestReceipts: true,
      enabled: true,
    },
    Date.now(),
  );
  await server.store.connectors.addRoute({ prefix: '+', connector: 'bench', priority: 0 }, Date.now());
  // The router picks the new connector up on its next reload (every 5 s).
  await new Promise((r) => setTimeout(r, 6_000));
  const counter = await openCounter(db);
  const bar = progress(`smpp ${engine}`, recipients, 'delivered');
  try {
    const started = performance.now();
    for (let done = 0; done < recipients; done += 1000) {
      const n = Math.min(1000, recipients - done);
      // Last digits 0-4: the simulator delivers every one of them.
      const to = Array.from({ length: n }, (_, i) => {
        const k = done + i;
        return `+61491${String(Math.floor(k / 5) * 10 + (k % 5)).padStart(6, '0')}`;
      });
      const r = await fetch(`${server.baseUrl}/sms/message`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to, from: 'Bench', body: 'SMPP benchmark' }),
      });
      if (r.status !== 201) throw new Error(`POST failed: ${r.status} ${await r.text()}`);
    }
    let sentAt = 0;
    for (;;) {
      const sent = await counter.sent();
      if (sentAt === 0 && sent >= recipients) sentAt = performance.now();
      const delivered = await counter.delivered();
      bar.update(delivered);
      if (delivered >= recipients) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const deliveredAt = performance.now();
    bar.finish();
    return {
      engine,
      toSent: (recipients / (sentAt - started)) * 1000,
      toDelivered: (recipients / (deliveredAt - started)) * 1000,
      elapsed: deliveredAt - started,
      submits: await counter.attempts(),
    };
  } finally {
    await counter.close();
    await server.stop();
    smsc.child.kill('SIGTERM');
    await db.drop();
  }
}

export async function runSmppBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      engine: { type: 'string', default: 'both' },
      recipients: { type: 'string', default: '100000' },
      window: { type: 'string', default: '100' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const engines = values.engine === 'both' ? ENGINES : [values.engine as Engine];
  const recipients = Number(values.recipients);
  const rows: string[][] = [];
  for (const engine of engines) {
    const r = await runOne(engine, recipients, Number(values.window));
    rows.push([
      engine,
      count(recipients),
      seconds(r.elapsed),
      `${count(r.toSent)} /s`,
      `${count(r.toDelivered)} /s`,
      count(r.submits),
      r.toDelivered >= 5000 ? 'PASS (>= 5,000/s)' : 'MISS (>= 5,000/s)',
    ]);
  }
  process.stdout.write(
    `\nAPI → SMPP connector → smsc-sim (window ${values.window})\n` +
      `${table(['engine', 'recipients', 'time', 'to sent', 'to delivered', 'submit attempts', 'target'], rows)}\n`,
  );
}
