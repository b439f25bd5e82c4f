/**
 * `npm run bench -- smpp-server`: customers submitting over SMPP to smsgw, which sends over
 * SMPP to the SMSC simulator, with receipts both ways (smsc-sim → smsgw → customer deliver_sm);
 * beside it, the same number of single-recipient POSTs, so the two entry paths compare on the
 * same machine in the same run.
 */
import net from 'node:net';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { CommandStatus, makePdu } from '../src/carriers/smpp/pdu/index.js';
import { Link } from '../src/carriers/smpp/session/index.js';
import { createSmscSimulator } from '../src/carriers/smpp/smsc/index.js';
import { loadConfig } from '../src/config/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createBenchDatabase, ENGINES, type Engine } from './lib/database.js';
import { encodeRequest, Http1Connection } from './lib/http1.js';
import { progress } from './lib/progress.js';
import { count, seconds } from './lib/stats.js';
import { table } from './lib/table.js';
import { routeAllTo } from './lib/smpp-route.js';

const HELP = `Usage: npm run bench -- smpp-server [--engine sqlite|postgres|both] [--messages N] [--binds N] [--window N]

Phase 1 (HTTP): N single-recipient POST /v1/sms/message, binds x window at a time.
Phase 2 (SMPP): N submit_sm with registered_delivery over --binds transceiver binds (default 4),
--window unanswered each (default 10); smsgw sends them over SMPP to the SMSC simulator, whose
receipts come back and go on to the customer as deliver_sm.
Reports accepted/s for both paths (target: SMPP >= HTTP), receipts/s to the customer, and the
CPU time of this process (all threads: smsgw, simulator, clients) per 1,000 messages.
`;

const QUIET = pino({ level: 'warn' });
const SYSTEM_ID = 'bench';
const PASSWORD = 'benchpw';

function recipient(k: number): string {
  // Last digits 0-4: the simulator delivers every one.
  return `61491${String(Math.floor(k / 5) * 10 + (k % 5)).padStart(6, '0')}`;
}

interface Measured {
  readonly acceptedPerS: number;
  readonly cpuPerThousand: number;
  readonly receiptsPerS?: number;
  readonly elapsedMs: number;
}

async function httpPhase(
  server: RunningServer,
  key: string,
  n: number,
  concurrency: number,
): Promise<Measured> {
  const bar = progress('http', n, 'POSTs');
  const origin = server.baseUrl.replace(/\/v1$/, '');
  // The ingest bench's light HTTP/1.1 client: fetch cost several times smsgw's own CPU per
  // request, which is this process's too and would have counted against the HTTP path.
  const connections = await Promise.all(
    Array.from({ length: concurrency }, () => Http1Connection.open(origin)),
  );
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  let done = 0;
  await Promise.all(
    connections.map(async (connection) => {
      while (next < n) {
        const k = next++;
        const r = await connection.request(
          encodeRequest(
            origin,
            'POST',
            '/v1/sms/message',
            { authorization: `Bearer ${key}` },
            JSON.stringify({ to: [`+${recipient(k)}`], from: 'Bench', body: 'SMPP server benchmark' }),
          ),
        );
        if (r.status !== 201) throw new Error(`POST: ${r.status} ${r.body.toString()}`);
        bar.update(++done);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  for (const c of connections) c.close();
  bar.finish();
  return { acceptedPerS: (n / elapsedMs) * 1000, cpuPerThousand: (used.user + used.system) / n, elapsedMs };
}

async function smppPhase(server: RunningServer, n: number, binds: number, window: number): Promise<Measured> {
  let receipts = 0;
  let acceptedAt = 0;
  let receiptsDone: () => void = () => {};
  const allReceipts = new Promise<void>((ok) => (receiptsDone = ok));
  const bar = progress('smpp', n, 'receipts');
  const links = await Promise.all(
    Array.from({ length: binds }, async () => {
      const socket = net.connect(server.smpp!.port, '127.0.0.1');
      await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
      const link: Link = new Link(socket, {
        logger: QUIET,
        enquireLinkMs: 0,
        responseTimeoutMs: 30_000,
        onRequest: (pdu) => {
          if (pdu.command !== 'deliver_sm') return;
          link.send(makePdu('deliver_sm_resp', { sequenceNumber: pdu.sequenceNumber, messageId: '' }));
          bar.update(++receipts);
          if (receipts >= n) receiptsDone();
        },
      });
      const bound = await link.request(
        {
          command: 'bind_transceiver',
          commandStatus: 0,
          systemId: SYSTEM_ID,
          password: PASSWORD,
          systemType: '',
          interfaceVersion: 0x34,
          addrTon: 0,
          addrNpi: 0,
          addressRange: '',
        },
        10_000,
      );
      if (bound.kind !== 'response' || bound.pdu.commandStatus !== 0) throw new Error('bench bind refused');
      return link;
    }),
  );
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  let throttled = 0;
  await Promise.all(
    links.flatMap((link) =>
      Array.from({ length: window }, async () => {
        while (next < n) {
          const k = next++;
          for (;;) {
            const reply = await link.request(
              makePdu('submit_sm', {
                sequenceNumber: 0,
                sourceAddr: 'Bench',
                sourceAddrTon: 5,
                destAddrTon: 1,
                destAddrNpi: 1,
                destinationAddr: recipient(k),
                registeredDelivery: 1,
                shortMessage: Buffer.from('SMPP server benchmark'),
              }),
              30_000,
            );
            if (reply.kind === 'response' && reply.pdu.commandStatus === CommandStatus.ESME_ROK) break;
            if (reply.kind === 'response' && reply.pdu.commandStatus === CommandStatus.ESME_RTHROTTLED) {
              throttled++;
              continue;
            }
            throw new Error(
              `submit_sm: ${reply.kind === 'response' ? reply.pdu.commandStatus : reply.detail}`,
            );
          }
        }
      }),
    ),
  );
  acceptedAt = performance.now();
  await allReceipts;
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  bar.finish();
  if (throttled > 0) QUIET.warn({ throttled }, 'submits throttled and sent again');
  await Promise.all(
    links.map((l) => l.request({ command: 'unbind', commandStatus: 0 }, 5_000).then(() => l.end('done'))),
  );
  return {
    acceptedPerS: (n / (acceptedAt - started)) * 1000,
    receiptsPerS: (n / elapsedMs) * 1000,
    cpuPerThousand: (used.user + used.system) / n,
    elapsedMs,
  };
}

async function runOne(engine: Engine, n: number, binds: number, window: number) {
  const db = await createBenchDatabase(engine);
  const smsc = await createSmscSimulator({ receiptDelayMs: 0, logger: QUIET });
  const key = 'bench-smpp-server-key';
  const server = await startServer(
    loadConfig({
      SMSGW_DATABASE_URL: db.url,
      SMSGW_PORT: '0',
      SMSGW_BOOTSTRAP_KEY: key,
      SMSGW_CARRIER: 'smpp',
      SMSGW_LOG_LEVEL: 'warn',
      SMSGW_SMPP_SERVER_PORT: '0',
    }),
    QUIET,
  );
  try {
    const account = (await server.store.accounts.getByName('default'))!;
    await server.store.smpp.users.set(
      {
        accountId: account.id,
        systemId: SYSTEM_ID,
        // The app hashes; the bench sets the hash the same way.
        passwordHash: await (await import('../src/app/smpp-users.js')).hashSmppPassword(PASSWORD),
        maxBinds: binds,
        window,
      },
      Date.now(),
    );
    await routeAllTo(server, smsc.port, 100);
    const http = await httpPhase(server, key, n, binds * window);
    const smpp = await smppPhase(server, n, binds, window);
    return { http, smpp };
  } finally {
    await server.stop();
    await smsc.close();
    await db.drop();
  }
}

export async function runSmppServerBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      engine: { type: 'string', default: 'sqlite' },
      messages: { type: 'string', default: '20000' },
      binds: { type: 'string', default: '4' },
      window: { type: 'string', default: '10' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const engines = values.engine === 'both' ? ENGINES : [values.engine as Engine];
  const n = Number(values.messages);
  const rows: string[][] = [];
  for (const engine of engines) {
    const { http, smpp } = await runOne(engine, n, Number(values.binds), Number(values.window));
    rows.push([
      engine,
      'HTTP POST',
      count(n),
      seconds(http.elapsedMs),
      `${count(http.acceptedPerS)} /s`,
      '-',
      `${count(http.cpuPerThousand)} ms`,
      '',
    ]);
    rows.push([
      engine,
      'SMPP submit_sm',
      count(n),
      seconds(smpp.elapsedMs),
      `${count(smpp.acceptedPerS)} /s`,
      `${count(smpp.receiptsPerS ?? 0)} /s`,
      `${count(smpp.cpuPerThousand)} ms`,
      smpp.acceptedPerS >= http.acceptedPerS ? 'PASS (>= HTTP)' : 'MISS (>= HTTP)',
    ]);
  }
  process.stdout.write(
    `\nCustomer → smsgw → SMPP → smsc-sim, receipts back to the customer (binds ${values.binds}, window ${values.window})\n` +
      `${table(['engine', 'path', 'messages', 'time', 'accepted', 'receipts to customer', 'CPU per 1k', 'target'], rows)}\n` +
      'accepted: submit_sm_resp (or 201) received; receipts: deliver_sm received by the customer (SMPP\n' +
      'phase: time to the last one). CPU per 1k: CPU time of this process, all threads, per 1,000.\n',
  );
}
