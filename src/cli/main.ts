#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../config/config.js';
import { AlreadyExistsError, ConflictError, NotFoundError, ValidationError } from '../domain/errors.js';
import { serve } from '../main.js';
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
server running. Run "smsgw <command> --help" for a command's options.
`;

export async function runCli(argv: string[]): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(HELP);
    return first === undefined ? 2 : 0;
  }
  if (first === 'serve' || first === 'start') {
    await serve();
    return -1;
  }
  if (first === 'smsc-sim') {
    const rest = argv.slice(1);
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(SMSC_SIM_USAGE);
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
  const rest = argv.slice(name.split(' ').length);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`Usage: ${command.usage}\n\n${command.summary}\n`);
    return 0;
  }
  try {
    await command.run(rest, cliConfig(process.env));
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
