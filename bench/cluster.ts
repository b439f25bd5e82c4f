/**
 * Several nodes on one PostgreSQL (decisions §23): the same work through 1, 2 and 3 node
 * processes, each with the simulated carrier, to see whether nodes add throughput and where
 * the limit is. Each run gets a fresh schema; each node is a process of its own, so its CPU is
 * its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { builtServerArgs, ROOT } from './lib/built-server.js';
import { createBenchDatabase } from './lib/database.js';
import { cpuMicros, postgresCpuSince } from './lib/proc-cpu.js';
import { waitForFinals } from './lib/finals.js';
import { progress } from './lib/progress.js';
import { count, seconds } from './lib/stats.js';
import { table } from './lib/table.js';

const HELP = `Usage: npm run bench -- cluster [--nodes 1,2,3] [--recipients N] [--batch N] [--concurrency N]

For each node count, starts that many smsgw processes on one fresh PostgreSQL schema (the
simulated carrier, no receipt delay) and POSTs N recipients (default 50,000; --batch per POST,
default 100) spread evenly over the nodes, --concurrency requests in flight per node (default
2). Reports recipients/s from the first POST to every recipient's final status, and the nodes'
CPU per recipient (all their threads, from /proc). Target: more nodes are never slower than one.
`;

const KEY = 'bench-cluster-key';

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

interface Node {
  readonly origin: string;
  readonly child: ChildProcess;
  output: string;
}

async function startNode(url: string, server: readonly string[]): Promise<Node> {
  const port = await freePort();
  const child = spawn(process.execPath, server, {
    cwd: ROOT,
    env: {
      ...process.env,
      SMSGW_PORT: String(port),
      SMSGW_DATABASE_URL: url,
      SMSGW_BOOTSTRAP_KEY: KEY,
      SMSGW_SIM_DELAY_MS: '0',
      SMSGW_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const node: Node = { origin: `http://127.0.0.1:${port}`, child, output: '' };
  child.stderr!.on('data', (d: Buffer) => (node.output += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (node.output += d.toString()));
  return node;
}

async function waitReady(node: Node): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (node.child.exitCode !== null) throw new Error(`a node exited at start:\n${node.output}`);
    const r = await fetch(`${node.origin}/readyz`).catch(() => null);
    if (r?.ok) return;
    if (Date.now() > deadline) throw new Error(`a node was not ready within 120 s:\n${node.output}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

async function stopNodes(nodes: readonly Node[]): Promise<void> {
  await Promise.all(
    nodes.map(
      (n) =>
        new Promise((ok) => {
          if (n.child.exitCode !== null) return ok(null);
          n.child.once('exit', ok);
          n.child.kill('SIGTERM');
        }),
    ),
  );
}

async function runOne(
  nodeCount: number,
  recipients: number,
  batch: number,
  concurrency: number,
  server: readonly string[],
) {
  const db = await createBenchDatabase('postgres');
  // The first node migrates and creates the account; the others join a ready database, as an
  // operator adding nodes would.
  const nodes: Node[] = [await startNode(db.url, server)];
  try {
    await waitReady(nodes[0]!);
    for (let i = 1; i < nodeCount; i++) nodes.push(await startNode(db.url, server));
    await Promise.all(nodes.map(waitReady));
    const cpuBefore = nodes.map((n) => cpuMicros(n.child.pid!));
    const postgresCpu = postgresCpuSince();
    const bar = progress(`cluster ${nodeCount} node${nodeCount > 1 ? 's' : ''}`, recipients, 'recipients');
    const started = performance.now();
    let next = 0;
    const post = async (node: Node) => {
      for (;;) {
        const from = next;
        if (from >= recipients) return;
        const n = Math.min(batch, recipients - from);
        next += n;
        const to = Array.from({ length: n }, (_, i) => `+61491${String(from + i).padStart(6, '0')}`);
        const r = await fetch(`${node.origin}/v1/sms/message`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ to, from: 'Bench', body: 'Benchmark message' }),
        });
        if (r.status !== 201) throw new Error(`POST failed: ${r.status} ${await r.text()}`);
      }
    };
    await Promise.all(nodes.flatMap((node) => Array.from({ length: concurrency }, () => post(node))));
    const acceptedMs = performance.now() - started;
    await waitForFinals(db, recipients, bar, 50, () => {
      if (nodes.some((n) => n.child.exitCode !== null))
        throw new Error(`a node died:\n${nodes.map((n) => n.output).join('\n')}`);
    });
    const elapsedMs = performance.now() - started;
    bar.finish();
    const cpu = nodes.reduce((sum, n, i) => sum + cpuMicros(n.child.pid!) - cpuBefore[i]!, 0);
    const postgres = postgresCpu();
    return {
      nodes: nodeCount,
      perSecond: (recipients / elapsedMs) * 1000,
      acceptedPerSecond: (recipients / acceptedMs) * 1000,
      elapsedMs,
      cpuPerRecipient: cpu / recipients,
      postgresPerRecipient: postgres === null ? null : postgres / recipients,
    };
  } finally {
    await stopNodes(nodes);
    await db.drop();
  }
}

export async function runClusterBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      nodes: { type: 'string', default: '1,2,3' },
      recipients: { type: 'string', default: '50000' },
      batch: { type: 'string', default: '100' },
      concurrency: { type: 'string', default: '2' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const counts = values.nodes.split(',').map(Number);
  if (counts.some((n) => !Number.isInteger(n) || n < 1 || n > 8))
    throw new Error('--nodes: 1 to 8, e.g. 1,2,3');
  const recipients = Number(values.recipients);
  const batch = Number(values.batch);
  const concurrency = Number(values.concurrency);
  const results = [];
  const server = builtServerArgs();
  for (const n of counts) results.push(await runOne(n, recipients, batch, concurrency, server));
  const one = results.find((r) => r.nodes === 1);
  process.stdout.write(
    `\n${table(
      [
        'nodes',
        'recipients/s',
        'accepted/s',
        'time',
        'CPU µs/recipient',
        'PostgreSQL CPU µs/recipient',
        'vs 1 node',
        'target',
      ],
      results.map((r) => [
        String(r.nodes),
        count(r.perSecond),
        count(r.acceptedPerSecond),
        seconds(r.elapsedMs),
        count(r.cpuPerRecipient),
        r.postgresPerRecipient === null ? '-' : count(r.postgresPerRecipient),
        one ? `${(r.perSecond / one.perSecond).toFixed(2)}x` : '-',
        !one || r.nodes === 1 ? '-' : r.perSecond >= one.perSecond ? 'PASS' : 'MISS',
      ]),
    )}\n`,
  );
}
