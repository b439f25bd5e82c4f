/**
 * `smsgw smsc-sim`: the SMSC simulator as a process, for pointing an SMPP connector (ours,
 * Kannel, anything) at something that behaves like decisions §8.
 */
import { pino } from 'pino';
import { createSmscSimulator, startHttpControl, type IdFormat } from '../carriers/smpp/smsc/index.js';
import { integer, optionalString, parse } from './args.js';
import { UsageError } from './context.js';

export const SMSC_SIM_USAGE = `smsgw smsc-sim [options]

Runs an SMPP 3.4 SMSC simulator until SIGINT/SIGTERM. Outcome by the destination's last
digit: 0-4 delivered, 5 undeliverable, 6 refused at submit, 7 expired, 8 deleted, 9 unknown.

Options:
  --host <addr>             listen address (default 127.0.0.1)
  --port <n>                SMPP port (default 2775)
  --system-id <id>          accept only this system_id (default: any)
  --password <pw>           accept only this password (default: any)
  --receipt-delay-ms <n>    submit → receipt delay (default 200)
  --window <n>              max unanswered submits per session, 0 = no limit (default 0)
  --throughput <n>          max submits/s per session, 0 = no limit (default 0)
  --id-format hex|decimal   message ids in submit_sm_resp (default hex)
  --receipt-id-format hex|decimal   ids in receipts (default: as --id-format)
  --http-port <n>           also serve POST /mo {"from","to","body"} and GET /stats
  --log-level <level>       pino level (default info)
  --help                    this text`;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'system-id': { type: 'string' },
  password: { type: 'string' },
  'receipt-delay-ms': { type: 'string' },
  window: { type: 'string' },
  throughput: { type: 'string' },
  'id-format': { type: 'string' },
  'receipt-id-format': { type: 'string' },
  'http-port': { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean' },
} as const;

function idFormat(value: string | undefined, name: string): IdFormat | undefined {
  if (value === undefined || value === 'hex' || value === 'decimal') return value;
  throw new UsageError(`--${name} is hex or decimal`);
}

function nonNegative(values: Record<string, unknown>, name: string): number | undefined {
  const n = integer(optionalString(values, name), name);
  if (n !== undefined && (n < 0 || n > 65_535 * 1_000)) throw new UsageError(`--${name} must be >= 0`);
  return n;
}

export interface SmscSimRun {
  /** Stops the simulator instead of a signal (tests). */
  readonly signal?: AbortSignal;
  /** Called once listening, with the actual ports (for --port 0). */
  readonly ready?: (ports: { port: number; httpPort: number | null }) => void;
}

export async function runSmscSim(argv: string[], run: SmscSimRun = {}): Promise<void> {
  const { values } = parse(argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`Usage: ${SMSC_SIM_USAGE}\n`);
    return;
  }
  const host = optionalString(values, 'host') ?? '127.0.0.1';
  const logger = pino({
    level: optionalString(values, 'log-level') ?? 'info',
    base: { service: 'smsc-sim' },
  });
  const sim = await createSmscSimulator({
    host,
    port: nonNegative(values, 'port') ?? 2775,
    systemId: optionalString(values, 'system-id'),
    password: optionalString(values, 'password'),
    receiptDelayMs: nonNegative(values, 'receipt-delay-ms'),
    window: nonNegative(values, 'window'),
    throughput: nonNegative(values, 'throughput'),
    idFormat: idFormat(optionalString(values, 'id-format'), 'id-format'),
    receiptIdFormat: idFormat(optionalString(values, 'receipt-id-format'), 'receipt-id-format'),
    logger,
  });
  const httpPort = nonNegative(values, 'http-port');
  const control = httpPort === undefined ? null : await startHttpControl(sim, host, httpPort);
  if (control) logger.info({ port: control.port }, 'MO injection: POST /mo {"from","to","body"}');
  run.ready?.({ port: sim.port, httpPort: control?.port ?? null });

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    run.signal?.addEventListener('abort', stop, { once: true });
    if (run.signal?.aborted) stop();
  });
  await control?.close();
  await sim.close();
}
