/**
 * End to end, smsgw only: the API → smsgw's SMPP connector → `smsgw smsc-sim` with receipts →
 * the webhook receiver, each a process or thread of its own, so the server's CPU is its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { FINAL_STATUSES } from '../src/domain/status.js';
import { builtServerArgs, ROOT } from './lib/built-server.js';
import { createBenchDatabase, type Engine } from './lib/database.js';
import { runLoadIn, type LoadRequest } from './lib/load.js';
import { cpuMicros } from './lib/proc-cpu.js';
import { count, seconds } from './lib/stats.js';
import { table } from './lib/table.js';

const HELP = `Usage: npm run bench -- e2e [--scenario max|max-final|bulk|all] [--engine sqlite|postgres]
                          [--duration S] [--connections N] [--backlog N]

Drives POST /v1/sms/message for --duration seconds (default 20) over --connections keep-alive
connections (default 64), one recipient each (bulk: 100, over 4 connections), through smsgw
with SMSGW_CARRIER=smpp to a separate smsc-sim process (window 100, receipts at once), with
per_recipient (max, bulk) or per_recipient_final (max-final) reports to a receiver thread.
Reports, per scenario: accepted/s; e2e messages/s (final reports received, from the first
POST to the last final report); the server process's CPU per message over load and drain;
webhook lag (report arrival - its status time) p50/p99; peak RSS. The server runs from dist/ as
\`npm start\` runs it (built first when a source changed). With --backlog N, a last
phase queues N recipients (1,000 per POST, as fast as accepted) and reports peak RSS while
they wait and drain. Targets: CPU <= 228 us/msg (a third of Kannel's 684 us in the side-by-side
harness's reference run), webhook lag p99 < 2 s, RSS < 300 MB.
`;

const KEY = 'bench-e2e-key';
const ADMIN = 'bench-e2e-admin';
const CPU_TARGET_US = 228;
const LAG_TARGET_MS = 2_000;
const RSS_TARGET_MB = 300;

interface Scenario {
  readonly name: string;
  readonly report: 'per_recipient' | 'per_recipient_final';
  readonly recipients: number;
  readonly connections: number;
}

const SCENARIOS: Record<string, Scenario> = {
  max: { name: 'max', report: 'per_recipient', recipients: 1, connections: 64 },
  'max-final': { name: 'max-final', report: 'per_recipient_final', recipients: 1, connections: 64 },
  bulk: { name: 'bulk', report: 'per_recipient', recipients: 100, connections: 4 },
};

function tsxProcess(args: string[], env: Record<string, string>): ChildProcess {
  return nodeProcess(['--import', 'tsx', ...args], env);
}

function nodeProcess(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The server as `npm start` runs it (bench/lib/built-server.ts). */
function serverProcess(env: Record<string, string>): ChildProcess {
  return nodeProcess(builtServerArgs(), env);
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : 0;
}

/** The receiver in a thread of its own: counts reports, and their lag from status time to arrival. */
function startReceiver(): Promise<{ port: number; worker: Worker }> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    const http = require('node:http');
    const FINAL = new Set(${JSON.stringify([...FINAL_STATUSES])});
    let finals = 0, reports = 0, lastFinalAt = 0, lags = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const now = Date.now();
        const r = JSON.parse(body);
        reports += 1;
        lags.push(now - Date.parse(r.tstamp));
        if (FINAL.has(r.status)) { finals += 1; lastFinalAt = now; }
        res.writeHead(200, { 'content-length': '0' }).end();
      });
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
    parentPort.on('message', (m) => {
      if (m === 'reset') { finals = 0; reports = 0; lastFinalAt = 0; lags = []; }
      if (m === 'read') parentPort.postMessage({ finals, reports, lastFinalAt, lags });
    });`;
  const worker = new Worker(code, { eval: true });
  return new Promise((ok) => worker.once('message', (m: { port: number }) => ok({ port: m.port, worker })));
}

function readReceiver(worker: Worker) {
  return new Promise<{ finals: number; reports: number; lastFinalAt: number; lags: number[] }>((ok) => {
    worker.once('message', ok);
    worker.postMessage('read');
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

async function admin(origin: string, method: string, path: string, body: unknown) {
  const r = await fetch(`${origin}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`admin ${method} ${path}: ${r.status} ${await r.text()}`);
}

export async function runE2eBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenario: { type: 'string', default: 'all' },
      engine: { type: 'string', default: 'sqlite' },
      duration: { type: 'string', default: '20' },
      connections: { type: 'string' },
      backlog: { type: 'string', default: '0' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const names = values.scenario === 'all' ? Object.keys(SCENARIOS) : [values.scenario!];
  for (const n of names) if (!SCENARIOS[n]) throw new Error(`unknown scenario ${n}; see --help`);
  const durationMs = Number(values.duration) * 1000;
  const db = await createBenchDatabase(values.engine as Engine);
  const receiver = await startReceiver();
  const smscPort = 20_000 + Math.floor(Math.random() * 20_000);
  const apiPort = smscPort + 1;
  const smsc = tsxProcess(
    [
      'src/cli/main.ts',
      'smsc-sim',
      '--port',
      String(smscPort),
      '--receipt-delay-ms',
      '0',
      '--window',
      '100',
      '--log-level',
      'warn',
    ],
    {},
  );
  const server = serverProcess({
    SMSGW_PORT: String(apiPort),
    SMSGW_DATABASE_URL: db.url,
    SMSGW_CARRIER: 'smpp',
    SMSGW_ADMIN_TOKEN: ADMIN,
    SMSGW_BOOTSTRAP_KEY: KEY,
    SMSGW_WEBHOOK_ALLOW_PRIVATE: 'true',
    SMSGW_LOG_LEVEL: 'warn',
  });
  let serverOut = '';
  server.stderr!.on('data', (d: Buffer) => (serverOut += d.toString()));
  const origin = `http://127.0.0.1:${apiPort}`;
  const rows: string[][] = [];
  try {
    await waitFor(
      async () => (await fetch(`${origin}/v1/openapi.json`).catch(() => null))?.ok === true,
      'smsgw',
    );
    await admin(origin, 'POST', '/connectors', {
      name: 'sim',
      host: '127.0.0.1',
      port: smscPort,
      system_id: 'smsgw',
      password: 'bench',
      window: 100,
    });
    await admin(origin, 'POST', '/routes', { prefix: '+', connector: 'sim' });
    await admin(origin, 'PATCH', '/accounts/1', { callback_url: `http://127.0.0.1:${receiver.port}/dlr` });
    await waitFor(async () => {
      const r = await fetch(`${origin}/admin/v1/connectors`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      return JSON.stringify(await r.json()).includes('"bound":true');
    }, 'the SMPP bind');

    let counter = 0;
    for (const name of names) {
      const scenario = SCENARIOS[name]!;
      const connections = Number(values.connections ?? scenario.connections);
      receiver.worker.postMessage('reset');
      const requests: LoadRequest[] = Array.from({ length: 5_000 }, () => ({
        method: 'POST',
        path: '/v1/sms/message',
        body: JSON.stringify({
          to: Array.from({ length: scenario.recipients }, () => `+4670${String(counter++).padStart(8, '0')}`),
          from: 'Bench',
          body: 'End to end benchmark message',
          delivery_report: scenario.report,
        }),
      }));
      process.stderr.write(`e2e ${name}: ${seconds(durationMs)} of load over ${connections} connections…\n`);
      const pid = server.pid!;
      let peakRss = rssMb(pid);
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(pid))), 200);
      const cpu0 = cpuMicros(pid);
      const started = Date.now();
      const load = await runLoadIn('worker', {
        origin,
        headers: { authorization: `Bearer ${KEY}` },
        requests,
        count: 100_000_000,
        maxDurationMs: durationMs,
        concurrency: connections,
        expectStatus: 201,
      });
      const accepted = (load.latenciesMs.length - load.unexpected) * scenario.recipients;
      // Drained: every accepted message has its final report (or nothing came for 15 s).
      let last = await readReceiver(receiver.worker);
      let stalledSince = Date.now();
      while (last.finals < accepted && Date.now() - stalledSince < 15_000) {
        await new Promise((r) => setTimeout(r, 250));
        const now = await readReceiver(receiver.worker);
        if (now.finals > last.finals) stalledSince = Date.now();
        last = now;
        process.stderr.write(`\r  ${count(last.finals)} / ${count(accepted)} final reports`);
      }
      process.stderr.write('\n');
      const cpu = cpuMicros(pid) - cpu0;
      clearInterval(sampler);
      const lags = [...last.lags].sort((a, b) => a - b);
      const e2e = last.finals / ((last.lastFinalAt - started) / 1000);
      const cpuPerMsg = cpu / Math.max(1, last.finals);
      const p99 = percentile(lags, 99);
      const verdict = (ok: boolean, what: string) => `${ok ? 'PASS' : 'MISS'} ${what}`;
      rows.push([
        name,
        `${count(accepted / (load.elapsedMs / 1000))}/s`,
        `${count(e2e)}/s${last.finals < accepted ? ` INCOMPLETE ${count(last.finals)}/${count(accepted)}` : ''}`,
        `${count(cpuPerMsg)} µs`,
        `${count(percentile(lags, 50))} / ${count(p99)} ms`,
        `${count(peakRss)} MB`,
        [
          verdict(cpuPerMsg <= CPU_TARGET_US, `cpu<=${CPU_TARGET_US}`),
          verdict(p99 < LAG_TARGET_MS, 'lag'),
          verdict(peakRss < RSS_TARGET_MB, 'rss'),
        ].join(', '),
      ]);
      // Quiet before the next scenario.
      await new Promise((r) => setTimeout(r, 2_000));
    }

    const backlog = Number(values.backlog);
    if (backlog > 0) rows.push(await backlogPhase(origin, server.pid!, receiver.worker, backlog));
  } catch (error) {
    process.stderr.write(`${serverOut.slice(-2000)}\n`);
    throw error;
  } finally {
    server.kill('SIGTERM');
    smsc.kill('SIGTERM');
    await Promise.all(
      [server, smsc].map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))),
    );
    await receiver.worker.terminate();
    await db.drop();
  }
  process.stdout.write(
    `\nAPI → smsgw → smsc-sim (SMPP, receipts) → webhooks, ${values.engine}\n` +
      `${table(['scenario', 'accepted', 'e2e', 'CPU/msg', 'lag p50 / p99', 'peak RSS', 'targets'], rows)}\n`,
  );
}

/** N recipients queued as fast as accepted, then drained: the server's RSS throughout. */
async function backlogPhase(origin: string, pid: number, receiver: Worker, total: number): Promise<string[]> {
  receiver.postMessage('reset');
  let peakRss = rssMb(pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(pid))), 200);
  const per = 1_000;
  const requests: LoadRequest[] = Array.from({ length: Math.ceil(total / per) }, (_, i) => ({
    method: 'POST',
    path: '/v1/sms/message',
    body: JSON.stringify({
      to: Array.from({ length: per }, (_, j) => `+4671${String(i * per + j).padStart(8, '0')}`),
      from: 'Bench',
      body: 'Backlog',
      delivery_report: 'per_recipient_final',
    }),
  }));
  process.stderr.write(`e2e backlog: queueing ${count(total)} recipients…\n`);
  const started = Date.now();
  await runLoadIn('worker', {
    origin,
    headers: { authorization: `Bearer ${KEY}` },
    requests,
    count: requests.length,
    concurrency: 4,
    expectStatus: 201,
  });
  const queuedRss = peakRss;
  let last = await readReceiver(receiver);
  let stalledSince = Date.now();
  while (last.finals < total && Date.now() - stalledSince < 30_000) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = await readReceiver(receiver);
    if (now.finals > last.finals) stalledSince = Date.now();
    last = now;
    process.stderr.write(
      `\r  ${count(last.finals)} / ${count(total)} drained, RSS now ${count(rssMb(pid))} MB`,
    );
  }
  process.stderr.write('\n');
  clearInterval(sampler);
  return [
    `backlog ${count(total)}`,
    `queued in ${seconds(Date.now() - started)}`,
    `${count(last.finals / ((last.lastFinalAt - started) / 1000))}/s`,
    '-',
    '-',
    `${count(queuedRss)} / ${count(peakRss)} MB`,
    `${peakRss < RSS_TARGET_MB ? 'PASS' : 'MISS'} rss (queued / draining)`,
  ];
}
