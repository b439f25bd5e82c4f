/**
 * `npm run bench -- <name> [options]`. Each bench is one line below; its module is loaded only
 * when it runs, so one bench's dependencies never slow another's start.
 */
interface Bench {
  readonly summary: string;
  run(argv: string[]): Promise<void>;
}

const BENCHES: Record<string, Bench> = {
  ingest: {
    summary: 'HTTP ingest: single and bulk POST /v1/sms/message, list queries over 1M messages',
    run: async (argv) => (await import('./ingest.js')).runIngest(argv),
  },
  engine: {
    summary: 'Sending engine: 100,000 recipients POST → simulator → final status, with queue memory',
    run: async (argv) => (await import('./engine.js')).runEngineBench(argv),
  },
  webhooks: {
    summary: 'Webhooks: per_recipient_final for 50,000 recipients; beside a receiver that always times out',
    run: async (argv) => (await import('./webhooks.js')).runWebhooksBench(argv),
  },
  e2e: {
    summary: 'End to end: API → SMPP to smsc-sim with receipts → webhooks; CPU per message, lag, RSS',
    run: async (argv) => (await import('./e2e.js')).runE2eBench(argv),
  },
  cluster: {
    summary: 'Several nodes: the same 50,000 recipients through 1, 2 and 3 node processes on one PostgreSQL',
    run: async (argv) => (await import('./cluster.js')).runClusterBench(argv),
  },
  metrics: {
    summary: 'Metrics: what counting costs one message on the e2e path, in nanoseconds',
    run: async (argv) => (await import('./metrics.js')).runMetricsBench(argv),
  },
  smpp: {
    summary: 'SMPP: 100,000 recipients API → connector → smsc-sim (window 100), to sent and to delivered',
    run: async (argv) => (await import('./smpp.js')).runSmppBench(argv),
  },
  'smpp-server': {
    summary: 'SMPP server: customer binds → smsgw → SMPP → smsc-sim, receipts both ways; vs HTTP POST',
    run: async (argv) => (await import('./smpp-server.js')).runSmppServerBench(argv),
  },
};

function usage(): string {
  const names = Object.entries(BENCHES).map(([name, b]) => `  ${name.padEnd(12)}${b.summary}`);
  return (
    `Usage: npm run bench -- <bench> [options]\n\nBenches:\n${names.join('\n')}\n\n` +
    `Run "npm run bench -- <bench> --help" for a bench's options. See bench/README.md.\n`
  );
}

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
  process.stdout.write(usage());
} else if (BENCHES[name] === undefined) {
  process.stderr.write(`bench: unknown bench "${name}"\n\n${usage()}`);
  process.exitCode = 2;
} else {
  await BENCHES[name].run(rest);
}
