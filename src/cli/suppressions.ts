import { requireAccountById, parsePage } from '../app/directory.js';
import { importSuppressions } from '../app/import-suppressions.js';
import { addSuppression, listSuppressions, removeSuppression } from '../app/suppressions.js';
import { optionalString, parse, requireString } from './args.js';
import type { Command } from './commands.js';
import { UsageError, print, withStore } from './context.js';

function positional(positionals: string[], name: string): string {
  const value = positionals[0];
  if (value === undefined) throw new UsageError(`${name} is required`);
  return value;
}

/** The CLI twins of /v1/suppressions (decisions §17), plus a CSV import. */
export const SUPPRESSION_COMMANDS: Record<string, Command> = {
  'suppressions list': {
    usage: 'smsgw suppressions list --account ACCOUNT_ID [--limit N] [--offset N]',
    summary: "Print an account's suppressed numbers, oldest first, as GET /v1/suppressions",
    async run(argv, config) {
      const { values } = parse(argv, {
        account: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
      });
      const page = parsePage(
        Object.fromEntries(
          (['limit', 'offset'] as const).flatMap((n) => {
            const v = optionalString(values, n);
            return v === undefined ? [] : [[n, v]];
          }),
        ),
      );
      await withStore(config, async ({ store }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        print(await listSuppressions(store, account.id, page));
      });
    },
  },

  'suppressions add': {
    usage: 'smsgw suppressions add --account ACCOUNT_ID MSISDN',
    summary: 'Suppress a number for an account: it is never sent to again until removed',
    async run(argv, config) {
      const { values, positionals } = parse(argv, { account: { type: 'string' } });
      await withStore(config, async ({ store, now }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        print(await addSuppression(store, account.id, positional(positionals, 'MSISDN'), now()));
      });
    },
  },

  'suppressions remove': {
    usage: 'smsgw suppressions remove --account ACCOUNT_ID MSISDN',
    summary: "Take a number off an account's suppression list",
    async run(argv, config) {
      const { values, positionals } = parse(argv, { account: { type: 'string' } });
      await withStore(config, async ({ store }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        print(await removeSuppression(store, account.id, positional(positionals, 'MSISDN')));
      });
    },
  },

  'suppressions import': {
    usage: 'smsgw suppressions import --account ACCOUNT_ID FILE.csv',
    summary:
      'Add every number of a CSV file (first field of each line; a header line is skipped) to the suppression list',
    async run(argv, config) {
      const { values, positionals } = parse(argv, { account: { type: 'string' } });
      const path = positional(positionals, 'FILE.csv');
      await withStore(config, async ({ store, now }) => {
        const account = await requireAccountById(store, requireString(values, 'account'));
        const started = Date.now();
        // Progress on stderr, so stdout carries only the JSON result.
        const result = await importSuppressions(store, account.id, path, now(), (p) =>
          process.stderr.write(
            `imported ${p.numbers} numbers (${p.lines} lines read, ${p.skipped} skipped)\n`,
          ),
        );
        print({ accountID: account.id, ...result, seconds: (Date.now() - started) / 1000 });
      });
    },
  },
};
