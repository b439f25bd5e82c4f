import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { createBenchDatabase, ENGINES, type Engine } from './lib/database.js';
import { progress } from './lib/progress.js';
import { count, ms, seconds, summarise } from './lib/stats.js';
import { table } from './lib/table.js';

const HELP = `Usage: npm run bench -- webhooks [--engine sqlite|postgres|both] [--recipients N] [--batch N]

per_recipient_final delivery reports for N recipients (default 50,000) through the real server
(simulator with zero delay) to a receiver on loopback, in a worker thread of its own.
Reported: webhooks/s and the latency from each recipient's final status (the report's tstamp)
to its arrival. Phases, each with the healthy account sending N recipients:
  alone                         the healthy receiver on its own (after an unreported warm-up)
  beside ... without reports    a second account sends N too, with no reports
  beside a second healthy ...   its N reports go to a second healthy receiver
  beside a stuck receiver       its N reports go to a receiver that never answers
  beside a stuck backlog        alone again, while the previous phase's N reports still wait
                                for the stuck receiver, which holds its connections open until
                                each attempt runs into SMSGW_WEBHOOK_TIMEOUT_MS
  alone again                   the stuck receiver answers again, its backlog drains, then alone
The verdict compares the stuck backlog phase with the mean of the two "alone" phases (target
≤ 10% slower): the only difference is the stuck receiver, and measuring alone before and after
every other phase cancels warm-up and the database's growth. The concurrent phases are context:
there the second account's sending shares the two cores too, which no receiver causes.
`;

const KEY = 'bench-webhooks-key';
const ADMIN = 'bench-webhooks-admin';

/**
 * The receivers, as plain JavaScript for a worker thread: the healthy one answers 200 and
 * notes how long each report took since its tstamp; the stuck one accepts and never answers.
 */
const RECEIVER_SOURCE = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const counter = new Int32Array(workerData.counter);
let latencies = [];
let first = 0;
let last = 0;
const stuckSockets = new Set();
let stuckRequests = 0;
// After 'heal' the stuck receiver answers, the requests it was holding included.
let healed = false;
const held = new Set();
let answeredByStuck = 0;
const answer = (res) => { res.writeHead(200).end(); answeredByStuck += 1; Atomics.store(counter, 2, answeredByStuck); };
const healthy = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    const tstamp = Date.parse(JSON.parse(Buffer.concat(chunks).toString()).tstamp);
    latencies.push(at - tstamp);
    if (first === 0) first = at;
    last = at;
    res.writeHead(200).end();
    Atomics.add(counter, 0, 1);
  });
});
healthy.keepAliveTimeout = 60000;
// The second account's receiver in the control phase: as healthy, counted apart.
const second = createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200).end(); Atomics.add(counter, 1, 1); });
});
second.keepAliveTimeout = 60000;
const stuck = createServer((req, res) => {
  req.resume();
  if (healed) return answer(res);
  stuckRequests += 1;
  held.add(res);
  res.on('close', () => held.delete(res));
});
stuck.keepAliveTimeout = 60000;
stuck.on('connection', (s) => { stuckSockets.add(s); s.on('close', () => stuckSockets.delete(s)); });
parentPort.on('message', (m) => {
  if (m === 'take') {
    const l = Float64Array.from(latencies);
    parentPort.postMessage({ latencies: l, first, last, stuckRequests }, [l.buffer]);
    latencies = []; first = 0; last = 0; stuckRequests = 0;
    Atomics.store(counter, 0, 0);
    Atomics.store(counter, 1, 0);
  } else if (m === 'heal') {
    healed = true;
    for (const res of held) answer(res);
    held.clear();
  } else if (m === 'close') {
    for (const s of stuckSockets) s.destroy();
    healthy.closeAllConnections();
    second.closeAllConnections();
    healthy.close(); second.close(); stuck.close();
    parentPort.postMessage('closed');
  }
});
healthy.listen(0, '127.0.0.1', () => second.listen(0, '127.0.0.1', () => stuck.listen(0, '127.0.0.1', () =>
  parentPort.postMessage({ healthy: healthy.address().port, second: second.address().port, stuck: stuck.address().port }))));
`;

interface Taken {
  readonly latencies: Float64Array;
  readonly first: number;
  readonly last: number;
  readonly stuckRequests: number;
}

async function startReceivers() {
  const counter = new SharedArrayBuffer(12);
  const worker = new Worker(RECEIVER_SOURCE, { eval: true, workerData: { counter } });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      // One exchange at a time: each takes its error listener away again (11 would warn).
      const failed = (error: Error) => {
        worker.off('message', answered);
        reject(error);
      };
      const answered = (value: T) => {
        worker.off('error', failed);
        resolve(value);
      };
      worker.once('message', answered);
      worker.once('error', failed);
    });
  const ports = await next<{ healthy: number; second: number; stuck: number }>();
  const received = new Int32Array(counter);
  return {
    healthyUrl: `http://127.0.0.1:${ports.healthy}/hooks`,
    secondUrl: `http://127.0.0.1:${ports.second}/hooks`,
    stuckUrl: `http://127.0.0.1:${ports.stuck}/hooks`,
    received: () => Atomics.load(received, 0),
    receivedBySecond: () => Atomics.load(received, 1),
    answeredByStuck: () => Atomics.load(received, 2),
    /** The stuck receiver answers from now on, the requests it holds too. */
    heal: () => worker.postMessage('heal'),
    take: async () => {
      const taken = next<Taken>();
      worker.postMessage('take');
      return taken;
    },
    close: async () => {
      const closed = next<string>();
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}

async function call(origin: string, method: string, path: string, token: string, body: unknown) {
  const r = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as Record<string, unknown>;
}

/** Who sends in a phase: the healthy account, and a second one beside it when given. */
interface PhaseKeys {
  readonly healthy: string;
  readonly other?: string;
  /** The second account's reports go to the second healthy receiver: wait for them too. */
  readonly secondReceiver?: boolean;
}

interface PhaseResult {
  readonly elapsed: number;
  readonly deliveryWindow: number;
  readonly latency: ReturnType<typeof summarise>;
  readonly stuckRequests: number;
  /** CPU time of this process (server, bench driver and receiver threads) per healthy report. */
  readonly cpuPerReport: number;
}

/**
 * POSTs `recipients` for the healthy account (and as many for the stuck one, interleaved, when
 * given) and waits until the healthy receiver has every report.
 */
async function phase(
  label: string,
  origin: string,
  receivers: Awaited<ReturnType<typeof startReceivers>>,
  keys: PhaseKeys,
  recipients: number,
  batch: number,
): Promise<PhaseResult> {
  const bar = progress(label, recipients, 'webhooks');
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let sent = 0; sent < recipients; sent += batch) {
    const n = Math.min(batch, recipients - sent);
    // Last digits 0–5 and 7–9 all reach a final status after the carrier accepted them;
    // 6 is refused at submit. Every recipient gets exactly one report either way.
    const to = Array.from({ length: n }, (_, i) => `+61491${String(sent + i).padStart(6, '0')}`);
    for (const key of [keys.healthy, keys.other]) {
      if (key === undefined) continue;
      await call(origin, 'POST', '/v1/sms/message', key, { to, from: 'Bench', body: 'Benchmark message' });
    }
    bar.update(receivers.received());
  }
  for (;;) {
    const done = receivers.received();
    bar.update(done);
    if (done >= recipients) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  bar.finish();
  // The second healthy receiver's reports must not spill into the next phase.
  while (keys.secondReceiver && receivers.receivedBySecond() < recipients) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const taken = await receivers.take();
  return {
    elapsed,
    deliveryWindow: taken.last - taken.first,
    latency: summarise(taken.latencies),
    stuckRequests: taken.stuckRequests,
    cpuPerReport: (used.user + used.system) / 1000 / recipients,
  };
}

/** Waits until every message of the account is complete, so all its reports are queued. */
async function allComplete(origin: string, key: string) {
  for (;;) {
    const page = await call(origin, 'GET', '/v1/sms/messages?completed=false&limit=1', key, undefined);
    if ((page.data as unknown[]).length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Waits until a count stops growing for two seconds with at least 99% of `expected` reached: the
 * few deliveries that ran into the timeout are due again only later on the retry schedule.
 */
async function drained(answered: () => number, expected: number) {
  const bar = progress('stuck receiver backlog draining', expected, 'webhooks');
  let last = -1;
  let still = 0;
  for (;;) {
    const now = answered();
    bar.update(now);
    still = now === last ? still + 1 : 0;
    last = now;
    if (now >= expected || (now >= expected * 0.99 && still >= 10)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  bar.finish();
}

async function runOne(engine: Engine, recipients: number, batch: number) {
  const db = await createBenchDatabase(engine);
  const receivers = await startReceivers();
  let server: RunningServer | null = null;
  try {
    const config = loadConfig({
      SMSGW_DATABASE_URL: db.url,
      SMSGW_PORT: '0',
      SMSGW_BOOTSTRAP_KEY: KEY,
      SMSGW_ADMIN_TOKEN: ADMIN,
      SMSGW_SIM_DELAY_MS: '0',
      SMSGW_LOG_LEVEL: 'warn',
    });
    server = await startServer(config, pino({ level: 'warn' }));
    const address = server.app.server.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    await call(origin, 'PATCH', '/admin/v1/accounts/1', ADMIN, {
      callback_url: receivers.healthyUrl,
      delivery_report: 'per_recipient_final',
    });
    const measure = (label: string, keys: PhaseKeys, n = recipients) =>
      phase(`webhooks ${engine} ${label}`, origin, receivers, keys, n, batch);
    /** A second account, sending from any sender, its per-recipient reports going to `url`. */
    const accountReportingTo = async (name: string, url: string) =>
      (
        await call(origin, 'POST', '/admin/v1/accounts', ADMIN, {
          name,
          any_sender: true,
          callback_url: url,
          delivery_report: 'per_recipient_final',
        })
      ).api_key as string;
    // Not reported: thread start-up, JIT and the first connections would otherwise count
    // against "alone", the baseline of the verdict.
    await measure('warm-up', { healthy: KEY }, Math.min(recipients, 5000));
    const alone = await measure('alone', { healthy: KEY });
    // Context from here to the stuck phase: a second account sends as much at the same time,
    // first without reports, then with reports to a receiver as healthy as the first (every
    // report made and delivered), then to the stuck one (every report made, none delivered).
    const quiet = await call(origin, 'POST', '/admin/v1/accounts', ADMIN, {
      name: 'bench-quiet',
      any_sender: true,
    });
    const control = await measure('beside a second account without reports', {
      healthy: KEY,
      other: quiet.api_key as string,
    });
    const twinPhase = await measure('beside a second healthy receiver', {
      healthy: KEY,
      other: await accountReportingTo('bench-twin', receivers.secondUrl),
      secondReceiver: true,
    });
    const stuckKey = await accountReportingTo('bench-stuck', receivers.stuckUrl);
    const beside = await measure('beside a stuck receiver', { healthy: KEY, other: stuckKey });
    // The judged phase: the healthy account alone again while the stuck receiver still holds
    // every report of the phase before (all queued once its messages are complete).
    await allComplete(origin, stuckKey);
    await receivers.take(); // counts from here: the stuck attempts during the phase itself
    const backlog = await measure("beside a stuck receiver's backlog", { healthy: KEY });
    // The control for order: the receiver answers again, its backlog drains, and the healthy
    // account runs alone once more on a database that has grown by every phase before.
    receivers.heal();
    await drained(receivers.answeredByStuck, recipients);
    await receivers.take();
    const after = await measure('alone again, after the backlog drained', { healthy: KEY });
    return {
      engine,
      recipients,
      alone,
      control,
      twin: twinPhase,
      beside,
      backlog,
      after,
      timeoutMs: config.webhookTimeoutMs,
    };
  } finally {
    // The stuck receiver's sockets go first, so the attempts held on them end now.
    await receivers.close();
    await server?.stop();
    await db.drop();
  }
}

export async function runWebhooksBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      engine: { type: 'string', default: 'both' },
      recipients: { type: 'string', default: '50000' },
      batch: { type: 'string', default: '1000' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const engines = values.engine === 'both' ? ENGINES : [values.engine as Engine];
  const rows: string[][] = [];
  const verdicts: string[] = [];
  let timeoutMs = 0;
  for (const engine of engines) {
    const r = await runOne(engine, Number(values.recipients), Number(values.batch));
    timeoutMs = r.timeoutMs;
    const rate = (p: PhaseResult) => r.recipients / p.elapsed;
    const below = (a: PhaseResult, p: PhaseResult) => {
      const d = 100 * (1 - rate(a) / rate(p));
      return d >= 0 ? `${d.toFixed(1)}% below` : `${(-d).toFixed(1)}% above`;
    };
    // "Alone" is measured before the other phases and again after them; their mean is the
    // baseline, so neither warm-up nor the database's growth counts for or against the stuck one.
    const aloneRate = (rate(r.alone) + rate(r.after)) / 2;
    const drop = 1 - rate(r.backlog) / aloneRate;
    const pct = (d: number) =>
      d >= 0 ? `${(100 * d).toFixed(1)}% below` : `${(-100 * d).toFixed(1)}% above`;
    verdicts.push(
      `${engine}: alone ${count(rate(r.alone) * 1000)}/s and ${count(rate(r.after) * 1000)}/s ` +
        `(target ≥ 5,000/s: ${Math.min(rate(r.alone), rate(r.after)) * 1000 >= 5000 ? 'PASS' : 'MISS'}); ` +
        `beside a stuck receiver's backlog ${pct(drop)} their mean ` +
        `(target ≤ 10%: ${drop <= 0.1 ? 'PASS' : 'MISS'}).\n  Context, with a second account sending at the same time: ` +
        `beside its stuck receiver ${below(r.beside, r.control)} beside it without reports, ` +
        `${below(r.beside, r.twin)} beside its healthy receiver`,
    );
    for (const [name, p] of [
      ['alone', r.alone],
      ['beside an account without reports', r.control],
      ['beside a second healthy receiver', r.twin],
      ['beside a stuck receiver', r.beside],
      ["beside a stuck receiver's backlog", r.backlog],
      ['alone again, after the backlog drained', r.after],
    ] as const) {
      rows.push([
        engine,
        name,
        count(r.recipients),
        seconds(p.elapsed),
        `${count((r.recipients / p.elapsed) * 1000)} /s`,
        `${count((r.recipients / Math.max(1, p.deliveryWindow)) * 1000)} /s`,
        ms(p.latency.p50),
        ms(p.latency.p99),
        ms(p.latency.max),
        p === r.beside || p === r.backlog ? count(p.stuckRequests) : '-',
        `${(p.cpuPerReport * 1000).toFixed(0)} µs`,
      ]);
    }
  }
  process.stdout.write(
    `\nper_recipient_final reports, POST → simulator (zero delay) → webhook at a loopback receiver\n` +
      `(rate: healthy receiver's reports over the whole run, and between its first and last report;\n` +
      ` latency: report tstamp, i.e. the final status, to arrival; stuck receiver never answers,\n` +
      ` each attempt ends at SMSGW_WEBHOOK_TIMEOUT_MS = ${timeoutMs} ms; cpu/report: this process's\n` +
      ` CPU time, all threads, per healthy report: steadier than the rates on a shared machine;\n` +
      ` PostgreSQL's own backends are not in it)\n` +
      `${table(
        [
          'engine',
          'phase',
          'reports',
          'time',
          'rate (run)',
          'rate (delivery)',
          'p50',
          'p99',
          'max',
          'stuck attempts',
          'cpu/report',
        ],
        rows,
      )}\n\n${verdicts.join('\n')}\n`,
  );
}
