#!/usr/bin/env node
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, type DatabaseConfig } from '../config/config.js';
import { AlreadyExistsError, ConflictError, NotFoundError, ValidationError } from '../domain/errors.js';
import { COMMANDS } from './commands.js';
import { SMSC_SIM_USAGE, runSmscSim } from './smsc-sim.js';
import { UsageError, cliConfig } from './context.js';

const HELP = `smsgw — self-hosted bulk SMS gateway

Usage: smsgw <command> [options]

Commands:
  serve                 Serve the API (same as npm start)
  smsc-sim              Run a standalone SMPP SMSC simulator (decisions §8 outcomes)
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(22)}${c.summary}`)
  .join('\n')}

Every command reads its configuration from the environment (and ./.env), e.g.
SMSGW_DATABASE_URL (default sqlite:./data/smsgw.sqlite), and works with or without a
server running. A command refuses an SQLite database file that does not exist (a mistyped
path would otherwise start an empty store): run "smsgw migrate" to create one, or add
--create to any command. Run "smsgw <command> --help" for a command's options.
`;

const SERVE_USAGE = `Usage: smsgw serve

Serves the API, the sending engine and the webhook sender until SIGTERM or SIGINT: what
"npm start" runs. It takes no options; it reads its configuration from the environment (and
./.env): SMSGW_PORT, SMSGW_HOST, SMSGW_DATABASE_URL, SMSGW_ADMIN_TOKEN, SMSGW_CARRIER, … (see
the README's Configuration table). It creates and migrates the database if there is none.
With SMSGW_SMPP_SERVER_PORT set it also serves SMPP 3.4 to customers whose accounts have
credentials ("smsgw smpp-users set"; README "SMPP for your customers").
`;

export async function runCli(argv: string[]): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(HELP);
    return first === undefined ? 2 : 0;
  }
  if (first === 'serve' || first === 'start') {
    if (argv.slice(1).some((a) => a === '--help' || a === '-h')) {
      process.stdout.write(SERVE_USAGE);
      return 0;
    }
    // Loaded here, not up front: the other commands start without the HTTP server's modules.
    const { serve } = await import('../main.js');
    await serve();
    return -1;
  }
  if (first === 'smsc-sim') {
    const rest = argv.slice(1);
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(`Usage: ${SMSC_SIM_USAGE}\n`);
      return 0;
    }
    try {
      await runSmscSim(rest);
      return 0;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`smsgw: ${error.message}\n\n${SMSC_SIM_USAGE}`);
      return 2;
    }
  }
  const twoWords = second !== undefined ? `${first} ${second}` : first;
  const name = COMMANDS[twoWords] ? twoWords : COMMANDS[first] ? first : undefined;
  if (name === undefined) {
    process.stderr.write(`smsgw: unknown command "${twoWords}"\n\n${HELP}`);
    return 2;
  }
  const command = COMMANDS[name]!;
  const given = argv.slice(name.split(' ').length);
  if (given.includes('--help') || given.includes('-h')) {
    process.stdout.write(
      `Usage: ${command.usage}${name === 'migrate' ? '' : ' [--create]'}\n\n${command.summary}\n`,
    );
    return 0;
  }
  const create = given.includes('--create');
  const rest = given.filter((a) => a !== '--create');
  try {
    const config = cliConfig(process.env);
    const missing = missingDatabase(config.database);
    if (missing !== null && !create && name !== 'migrate') {
      process.stderr.write(
        `smsgw: there is no database at ${missing} (SMSGW_DATABASE_URL). Run "smsgw migrate" to create ` +
          'it, or add --create to this command.\n',
      );
      return 1;
    }
    await command.run(rest, config);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`smsgw: ${error.message}\n\nUsage: ${command.usage}\n`);
      return 2;
    }
    if (
      error instanceof ValidationError ||
      error instanceof NotFoundError ||
      error instanceof ConflictError ||
      error instanceof AlreadyExistsError ||
      error instanceof ConfigError
    ) {
      process.stderr.write(`smsgw: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** The path of an SQLite database file that does not exist yet, else null. */
function missingDatabase(database: DatabaseConfig): string | null {
  if (database.kind !== 'sqlite' || database.path === ':memory:') return null;
  return existsSync(database.path) ? null : database.path;
}

const invokedPath = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invokedPath === fileURLToPath(import.meta.url)) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      if (code >= 0) process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`smsgw: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
