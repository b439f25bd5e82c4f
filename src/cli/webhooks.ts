/**
 * `smsgw webhooks …`: the twins of GET /admin/v1/webhooks and POST …/{deliveryID}/replay
 * (decisions §9), on the store directly, so they work without a server running.
 */
import type { RawQuery } from '../app/list-query.js';
import { QueryError } from '../domain/errors.js';
import { listDeliveries, parseDeliveryFilter, replayDelivery } from '../webhooks/deliveries.js';
import { optionalString, parse } from './args.js';
import type { Command } from './commands.js';
import { UsageError, print, withStore } from './context.js';

/** Each option and the admin API's query parameter it stands for. */
const LIST_OPTIONS = {
  message: 'messageID',
  kind: 'kind',
  state: 'state',
  limit: 'limit',
  offset: 'offset',
} as const;

export const WEBHOOK_COMMANDS: Record<string, Command> = {
  'webhooks list': {
    usage:
      'smsgw webhooks list [--message MESSAGE_ID] [--kind delivery_report|inbound]\n' +
      '       [--state pending|delivered|failed] [--limit N] [--offset N]',
    summary: 'Print webhook deliveries with their attempts, newest first',
    async run(argv, config) {
      const { values } = parse(
        argv,
        Object.fromEntries(Object.keys(LIST_OPTIONS).map((name) => [name, { type: 'string' }])),
      );
      const query: RawQuery = Object.fromEntries(
        Object.entries(LIST_OPTIONS).flatMap(([option, param]) => {
          const value = optionalString(values, option);
          return value === undefined ? [] : [[param, value]];
        }),
      );
      await withStore(config, async ({ store }) => {
        try {
          print(await listDeliveries(store, parseDeliveryFilter(query)));
        } catch (error) {
          if (!(error instanceof QueryError)) throw error;
          // The API's message names its query parameter; say it with the option's name.
          const option = Object.entries(LIST_OPTIONS).find(([, param]) => param === error.argument)?.[0];
          throw new UsageError(
            option === undefined ? error.message : error.message.replace(error.argument, `--${option}`),
          );
        }
      });
    },
  },

  'webhooks replay': {
    usage: 'smsgw webhooks replay DELIVERY_ID',
    summary: 'Send a given-up (failed) delivery again: same webhook-id and body, fresh retry schedule',
    async run(argv, config) {
      const { positionals } = parse(argv, {});
      const [id, ...extra] = positionals;
      if (id === undefined) throw new UsageError('DELIVERY_ID is required');
      if (extra.length > 0) throw new UsageError('replay takes one DELIVERY_ID');
      if (!/^\d+$/.test(id)) throw new UsageError('DELIVERY_ID is a whole number');
      // Queued in the store: a running server's sender finds it within a second (its longest
      // sleep), or the next server to start sends it.
      await withStore(config, async ({ store, now }) => {
        print(await replayDelivery(store, Number(id), now()));
      });
    },
  },
};
