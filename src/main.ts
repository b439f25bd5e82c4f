import { existsSync } from 'node:fs';
import v8 from 'node:v8';
import { ConfigError, loadConfig } from './config/config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

/** `npm start`: serve the API with the configuration of the environment (and ./.env). */
export async function serve(): Promise<void> {
  keepServingWithoutOutput();
  collectRequestsYoung();
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`smsgw: invalid configuration: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  const origin = server.baseUrl.replace(/\/v1$/, '');
  logger.info(
    { url: server.baseUrl, docs: `${origin}/docs`, console: `${origin}/console/` },
    `smsgw listening on ${server.baseUrl}`,
  );
  if (server.bootstrapApiKey !== null) {
    // Printed once, plainly, so a new user can copy it; it is stored only as a hash.
    process.stdout.write(
      `\nAccount "default" was created. Its API key (shown once, keep it):\n\n  ${server.bootstrapApiKey}\n\n` +
        `Sign in to the web console at ${origin}/console/ with it, or try:\n\n` +
        `  curl -H "Authorization: Bearer ${server.bootstrapApiKey}" ${server.baseUrl}/sms/messages\n\n`,
    );
  }
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    logger.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // Accepted messages are in the database: a restart by the supervisor picks them up again.
  void server.engineFailed.then(() => {
    logger.fatal('exiting: the sending engine stopped');
    process.exit(1);
  });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/**
 * A log pipe whose reader went away (EPIPE) must not stop the server: pino already drops its
 * lines then, and the key printed at first start or a later write here would otherwise raise
 * an error event nobody handles, which ends the process.
 */
function keepServingWithoutOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

/**
 * V8 learns per allocation site whether its objects tend to outlive a young-generation
 * collection and, if so, allocates them in the old generation from then on. Under load it
 * decided that for the objects of each POST (the message, its plan, the suppression lookup's
 * sets), which die with the response: they piled up in the old generation at about 0.6 kB per
 * request until a full collection, which V8 puts off until 110–160 MB (64 connections of single
 * POSTs, 10 s: the API thread's old generation 25 -> 54 MB with it, 25 -> 29 MB without, at the
 * same request rate). The flag is read at each decision, so setting it here, before the engine
 * thread starts, holds for both threads; the process serving is ours, so nothing else shares it.
 */
function collectRequestsYoung(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}

const isEntryPoint = import.meta.url === `file://${process.argv[1]}`;
if (isEntryPoint) {
  serve().catch((error: unknown) => {
    process.stderr.write(
      `smsgw: failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
