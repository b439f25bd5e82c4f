import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createAccount } from '../src/app/accounts.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { ENGINES, createBenchDatabase, type BenchDatabase, type Engine } from './lib/database.js';
import { LOAD_PLACES, runLoadIn, type LoadPlace, type LoadRequest } from './lib/load.js';
import { progress } from './lib/progress.js';
import { SEED_SENDERS, seedMessages } from './lib/seed.js';
import { count, ms, seconds, summarise, type LatencySummary } from './lib/stats.js';
import { table } from './lib/table.js';

const USAGE = `Usage: npm run bench -- ingest [options]

Starts the real HTTP server on an ephemeral port for each engine and measures:
  single  POST /v1/sms/message with one recipient: requests/s, p50/p99
  bulk    POST /v1/sms/message with 1,000 recipients: recipients/s
  list    GET /v1/sms/messages (default, from=, sort=-created_at) over --messages stored messages

Options:
  --engine sqlite|postgres|both   default both
  --messages N                    messages generated for the list queries (default 1,000,000)
  --quick                         small numbers, for a smoke run
  --load worker|main              where the load generator runs (default worker)
  --phases single,bulk,list       run only these phases (default all)
  --max-seconds N                 cap on each measured run (default 60): slow queries end early
                                  and the request count shown is what was sent
  --sim-throughput N              SMSGW_SIM_THROUGHPUT of the server (default 0 = unlimited, as
                                  npm start runs it; 1 throttles sending to 1 message/s, which
                                  keeps most engine work out of the ingest numbers, though each
                                  message's release job still runs)
`;

interface Sizes {
  readonly single: { readonly warmup: number; readonly count: number; readonly concurrency: number };
  readonly bulk: {
    readonly warmup: number;
    readonly posts: number;
    readonly recipients: number;
    readonly concurrency: number;
  };
  readonly list: { readonly warmup: number; readonly count: number; readonly concurrency: number };
  readonly messages: number;
}

const FULL: Sizes = {
  single: { warmup: 2_000, count: 20_000, concurrency: 32 },
  bulk: { warmup: 5, posts: 100, recipients: 1_000, concurrency: 4 },
  list: { warmup: 200, count: 2_000, concurrency: 8 },
  messages: 1_000_000,
};

const QUICK: Sizes = {
  single: { warmup: 200, count: 2_000, concurrency: 32 },
  bulk: { warmup: 1, posts: 10, recipients: 1_000, concurrency: 4 },
  list: { warmup: 20, count: 200, concurrency: 8 },
  messages: 20_000,
};

const PHASES = ['single', 'bulk', 'list'] as const;
type Phase = (typeof PHASES)[number];

interface Measurement {
  readonly phase: Phase | 'seed';
  readonly label: string;
  /** Per second, in `unit`. */
  readonly rate: number;
  readonly unit: string;
  readonly latency: LatencySummary | null;
  readonly unexpected: number;
  readonly serverBusy: Measured['serverBusy'];
}

interface Target {
  readonly text: string;
  met(m: Measurement): boolean;
}

/** The goals of the brief; they are set for SQLite, the default engine. */
const TARGETS: Partial<Record<Engine, Partial<Record<Phase, Target>>>> = {
  sqlite: {
    single: { text: '≥ 5,000/s, p99 < 20 ms', met: (m) => m.rate >= 5_000 && (m.latency?.p99 ?? 0) < 20 },
    bulk: { text: '≥ 50,000 recipients/s', met: (m) => m.rate >= 50_000 },
    list: { text: 'p99 < 20 ms at 1M', met: (m) => (m.latency?.p99 ?? Infinity) < 20 },
  },
};

const BENCH_KEY = 'sk_bench_ingest_key';
/** Longest wait for the sending engine to work off what a phase queued. */
const DRAIN_LIMIT_MS = 15 * 60_000;

export async function runIngest(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      engine: { type: 'string', default: 'both' },
      messages: { type: 'string' },
      quick: { type: 'boolean', default: false },
      load: { type: 'string', default: 'worker' },
      phases: { type: 'string', default: PHASES.join(',') },
      'sim-throughput': { type: 'string', default: '0' },
      'max-seconds': { type: 'string', default: '60' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const engines = values.engine === 'both' ? ENGINES : ENGINES.filter((e) => e === values.engine);
  const place = LOAD_PLACES.find((p) => p === values.load);
  const phases = values.phases.split(',').map((p) => PHASES.find((known) => known === p.trim()));
  const messages = values.messages === undefined ? undefined : Number(values.messages.replace(/[,_]/g, ''));
  if (
    engines.length === 0 ||
    place === undefined ||
    phases.includes(undefined) ||
    !/^\d+$/.test(values['sim-throughput']) ||
    !/^[1-9]\d*$/.test(values['max-seconds']) ||
    (messages !== undefined && !(Number.isSafeInteger(messages) && messages > 0))
  ) {
    process.stderr.write(USAGE);
    process.exitCode = 2;
    return;
  }
  const base = values.quick ? QUICK : FULL;
  const options: RunOptions = {
    sizes: { ...base, messages: messages ?? base.messages },
    phases: new Set(phases as Phase[]),
    place,
    simThroughput: values['sim-throughput'],
    maxDurationMs: Number(values['max-seconds']) * 1000,
  };

  process.stdout.write(
    `smsgw ingest bench — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), ` +
      `load generator: ${place === 'worker' ? 'worker thread' : 'same thread as the server'}, ` +
      `SMSGW_SIM_THROUGHPUT=${options.simThroughput}\n`,
  );
  const results = new Map<Engine, EngineResult>();
  for (const engine of engines) results.set(engine, await benchEngine(engine, options));

  process.stdout.write('\n== Summary ==\n');
  for (const [engine, { measurements, notes }] of results) {
    const extra = notes.map((n) => `  ${n}\n`).join('');
    process.stdout.write(`\n${engine}\n${summaryTable(engine, measurements)}\n${extra}`);
  }
  process.stdout.write('\nTargets are goals, not tests: this bench always exits 0.\n');
}

interface RunOptions {
  readonly sizes: Sizes;
  readonly phases: ReadonlySet<Phase>;
  readonly place: LoadPlace;
  readonly simThroughput: string;
  readonly maxDurationMs: number;
}

interface EngineResult {
  readonly measurements: readonly Measurement[];
  readonly notes: readonly string[];
}

async function benchEngine(engine: Engine, options: RunOptions): Promise<EngineResult> {
  const { sizes, phases, place } = options;
  process.stdout.write(`\n== ${engine} == (load average ${loadAverage()})\n`);
  const db = await createBenchDatabase(engine);
  const config = loadConfig({
    SMSGW_PORT: '0',
    SMSGW_DATABASE_URL: db.url,
    SMSGW_LOG_LEVEL: 'warn',
    SMSGW_BOOTSTRAP_KEY: BENCH_KEY,
    SMSGW_SIM_THROUGHPUT: options.simThroughput,
  });
  let server: RunningServer | null = null;
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  const report = (m: Measurement) => {
    measurements.push(m);
    process.stdout.write(`${formatLine(engine, m)}  [load ${loadAverage()}]\n`);
  };
  try {
    server = await startServer(config, createLogger(config.logLevel));
    const base = new URL(server.baseUrl);
    // The server listens on config.host; "localhost" could resolve to ::1 first.
    const endpoint = {
      origin: `http://${config.host}:${base.port}`,
      prefix: base.pathname,
      headers: { authorization: `Bearer ${BENCH_KEY}` },
      place,
      maxDurationMs: options.maxDurationMs,
    };

    // Each phase starts with the engine idle: what one phase queued must not slow the next.
    if (phases.has('single')) {
      report(await singlePosts(endpoint, sizes.single));
      notes.push(await drain(db, 'after single POSTs', options.simThroughput));
    }
    if (phases.has('bulk')) {
      report(await bulkPosts(endpoint, sizes.bulk));
      notes.push(await drain(db, 'after bulk POSTs', options.simThroughput));
    }
    if (phases.has('list')) {
      // An account of its own, so the list data set is exactly the generated messages: the
      // POST phases' messages (1,000 recipients each for bulk) would otherwise be the newest
      // rows, and every list response would carry their recipients.
      const now = Date.now();
      const { account, key } = await createAccount(
        server.store,
        { name: 'bench-list', anySender: true },
        now,
      );
      const lister = { ...endpoint, headers: { authorization: `Bearer ${key.apiKey}` } };
      const seeded = await seedMessages(db, { accountId: account.id, messages: sizes.messages, now });
      report({
        phase: 'seed',
        label: `generate ${count(sizes.messages)} messages (${seconds(seeded.elapsedMs)})`,
        rate: (seeded.rows / seeded.elapsedMs) * 1000,
        unit: 'messages/s',
        latency: null,
        unexpected: 0,
        serverBusy: null,
      });
      const since = Math.floor(seeded.firstCreatedAt / 1000);
      const list = (label: string, paths: string[]) => listQueries(lister, sizes.list, label, paths);
      report(await list('list default', [`${endpoint.prefix}/sms/messages`]));
      report(
        await list(
          'list from=',
          SEED_SENDERS.map((s) => `${endpoint.prefix}/sms/messages?from=${encodeURIComponent(s)}`),
        ),
      );
      report(
        await list('list sort=-created_at 7d', [
          `${endpoint.prefix}/sms/messages?sort=-created_at&limit=100&created_at.min=${since}`,
        ]),
      );
    }
  } finally {
    await server?.stop();
    await db.drop();
  }
  return { measurements, notes };
}

/**
 * Waits until the sending engine has worked off the outbox (release, send and receipt work
 * the phase queued) and says how long that took: context for the ingest rates, since ingest
 * faster than sending builds a backlog.
 */
async function drain(db: BenchDatabase, after: string, simThroughput: string): Promise<string> {
  // A throttled carrier would keep the outbox full for as long as the sending takes.
  if (simThroughput !== '0')
    return `engine catch-up ${after}: not awaited (SMSGW_SIM_THROUGHPUT=${simThroughput})`;
  const started = performance.now();
  const pending = () => db.scalar('select count(*) from outbox');
  let left = await pending();
  if (left === 0) return `engine catch-up ${after}: outbox already empty`;
  let most = left;
  const bar = progress(`engine catch-up ${after}`, most, 'outbox jobs');
  while (left > 0 && performance.now() - started < DRAIN_LIMIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = await pending();
    most = Math.max(most, left);
    bar.update(most - left, most);
  }
  bar.finish();
  const elapsed = seconds(performance.now() - started);
  const line =
    left === 0
      ? `engine catch-up ${after}: outbox empty after ${elapsed} (at most ${count(most)} jobs waiting)`
      : `engine catch-up ${after}: gave up after ${elapsed} with ${count(left)} jobs left`;
  process.stdout.write(`${line}\n`);
  return line;
}

interface Endpoint {
  readonly origin: string;
  readonly prefix: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly place: LoadPlace;
  readonly maxDurationMs: number;
}

async function singlePosts(t: Endpoint, s: Sizes['single']): Promise<Measurement> {
  const requests = (n: number, offset: number): LoadRequest[] =>
    Array.from({ length: n }, (_, i) => ({
      method: 'POST',
      path: `${t.prefix}/sms/message`,
      body: JSON.stringify({ to: [msisdn(offset + i)], from: 'Acme', body: 'Your code is 123456' }),
    }));
  await measure(t, requests(s.warmup, 0), s.warmup, s.concurrency, 201);
  const result = await measure(t, requests(s.count, s.warmup), s.count, s.concurrency, 201);
  return {
    phase: 'single',
    label: `single POST (${count(result.sent)} @ ${s.concurrency})`,
    rate: (result.sent / result.elapsedMs) * 1000,
    unit: 'req/s',
    latency: result.latency,
    unexpected: result.unexpected,
    serverBusy: result.serverBusy,
  };
}

async function bulkPosts(t: Endpoint, s: Sizes['bulk']): Promise<Measurement> {
  const requests = (n: number, offset: number): LoadRequest[] =>
    Array.from({ length: n }, (_, p) => ({
      method: 'POST',
      path: `${t.prefix}/sms/message`,
      body: JSON.stringify({
        to: Array.from({ length: s.recipients }, (_, r) =>
          msisdn(50_000_000 + (offset + p) * s.recipients + r),
        ),
        from: 'Acme',
        body: 'Sale ends tonight: 20% off everything with code SAVE20',
      }),
    }));
  await measure(t, requests(s.warmup, 0), s.warmup, s.concurrency, 201);
  const result = await measure(t, requests(s.posts, s.warmup), s.posts, s.concurrency, 201);
  return {
    phase: 'bulk',
    label: `bulk POST (${result.sent} × ${count(s.recipients)} @ ${s.concurrency})`,
    rate: ((result.sent * s.recipients) / result.elapsedMs) * 1000,
    unit: 'recipients/s',
    latency: result.latency,
    unexpected: result.unexpected,
    serverBusy: result.serverBusy,
  };
}

async function listQueries(
  t: Endpoint,
  s: Sizes['list'],
  label: string,
  paths: readonly string[],
): Promise<Measurement> {
  const requests = paths.map((path): LoadRequest => ({ method: 'GET', path }));
  await measure(t, requests, s.warmup, s.concurrency, 200);
  const result = await measure(t, requests, s.count, s.concurrency, 200);
  return {
    phase: 'list',
    label: `${label} (${count(result.sent)} @ ${s.concurrency})`,
    rate: (result.sent / result.elapsedMs) * 1000,
    unit: 'req/s',
    latency: result.latency,
    unexpected: result.unexpected,
    serverBusy: result.serverBusy,
  };
}

interface Measured {
  readonly sent: number;
  readonly elapsedMs: number;
  readonly latency: LatencySummary | null;
  readonly unexpected: number;
  /** The server thread's busy share while the load ran, and its busy time per request. */
  readonly serverBusy: {
    readonly share: number;
    readonly perRequestUs: number;
    /** CPU time of the server thread itself (Linux): unlike busy time, neighbours barely move it. */
    readonly cpuPerRequestUs: number | null;
  } | null;
}

async function measure(
  t: Endpoint,
  requests: readonly LoadRequest[],
  n: number,
  concurrency: number,
  expectStatus: number,
): Promise<Measured> {
  if (n === 0) return { sent: 0, elapsedMs: 0, latency: null, unexpected: 0, serverBusy: null };
  // The server runs on this thread: its event-loop busy time is the server's CPU, whatever
  // else the shared machine is doing (wall-clock rates are not).
  const before = performance.eventLoopUtilization();
  const cpuBefore = mainThreadCpuMs();
  const result = await runLoadIn(t.place, {
    origin: t.origin,
    headers: t.headers,
    requests,
    count: n,
    maxDurationMs: t.maxDurationMs,
    concurrency,
    expectStatus,
  });
  const busy = performance.eventLoopUtilization(before);
  const cpuMs = mainThreadCpuMs() - cpuBefore;
  const sent = result.latenciesMs.length;
  if (result.unexpected > 0) {
    process.stderr.write(
      `warning: ${result.unexpected} unexpected responses, first: ${result.firstUnexpected}\n`,
    );
  }
  return {
    sent,
    elapsedMs: result.elapsedMs,
    latency: summarise(result.latenciesMs),
    unexpected: result.unexpected,
    // With --load main the load generator's own time is included.
    serverBusy: {
      share: busy.utilization,
      perRequestUs: sent > 0 ? (busy.active * 1000) / sent : 0,
      cpuPerRequestUs: Number.isNaN(cpuMs) || sent === 0 ? null : (cpuMs * 1000) / sent,
    },
  };
}

/** CPU time (user + system) of this process's main thread, from /proc; NaN where there is none. */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** USER_HZ, 100 on every Linux platform Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The machine's 1-minute load average: above the CPU count, other work skewed the numbers. */
function loadAverage(): string {
  return (loadavg()[0] ?? 0).toFixed(2);
}

/** Distinct, valid Australian mobile numbers (+614 and 8 digits). */
function msisdn(n: number): string {
  return `+614${String(n % 100_000_000).padStart(8, '0')}`;
}

function verdict(engine: Engine, m: Measurement): { target: string; verdict: string } {
  const target = m.phase === 'seed' ? undefined : TARGETS[engine]?.[m.phase];
  if (!target) return { target: '-', verdict: '' };
  return { target: target.text, verdict: target.met(m) ? 'PASS' : 'MISS' };
}

function formatLine(engine: Engine, m: Measurement): string {
  const { target, verdict: v } = verdict(engine, m);
  const latency = m.latency ? `  p50 ${ms(m.latency.p50)}  p99 ${ms(m.latency.p99)}` : '';
  const errors = m.unexpected > 0 ? `  (${count(m.unexpected)} unexpected responses)` : '';
  const goal = target === '-' ? '' : `  target ${target}: ${v}`;
  const busy = m.serverBusy
    ? `  server thread ${(m.serverBusy.share * 100).toFixed(0)}% busy` +
      (m.serverBusy.cpuPerRequestUs === null ? '' : `, ${count(m.serverBusy.cpuPerRequestUs)} µs CPU/request`)
    : '';
  return `${engine.padEnd(8)} ${m.label}: ${count(m.rate)} ${m.unit}${latency}${goal}${busy}${errors}`;
}

function summaryTable(engine: Engine, measurements: readonly Measurement[]): string {
  return table(
    ['measurement', 'rate', 'p50', 'p99', 'max', 'errors', 'target', 'result'],
    measurements.map((m) => {
      const { target, verdict: v } = verdict(engine, m);
      return [
        m.label,
        `${count(m.rate)} ${m.unit}`,
        m.latency ? ms(m.latency.p50) : '-',
        m.latency ? ms(m.latency.p99) : '-',
        m.latency ? ms(m.latency.max) : '-',
        count(m.unexpected),
        target,
        v,
      ];
    }),
  );
}
