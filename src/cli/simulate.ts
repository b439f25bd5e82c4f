import { destination, pino } from 'pino';
import { simulateInbound } from '../app/receive-inbound.js';
import { optionalString, parse, requireString } from './args.js';
import type { Command } from './commands.js';
import { UsageError, print, withStore } from './context.js';

/** `smsgw simulate inbound`: the twin of POST /admin/v1/simulator/inbound, without a server. */
export const simulateInboundCommand: Command = {
  usage: 'smsgw simulate inbound --from MSISDN --to MSISDN --body TEXT',
  summary: 'Store an inbound message as if a handset sent it to one of your numbers (simulator carrier)',
  async run(argv, config) {
    const { values } = parse(argv, {
      from: { type: 'string' },
      to: { type: 'string' },
      body: { type: 'string' },
    });
    const from = requireString(values, 'from');
    const to = requireString(values, 'to');
    // An empty text is a real (if odd) SMS, so only a missing --body is a mistake.
    const body = optionalString(values, 'body');
    if (body === undefined) throw new UsageError('--body is required');
    await withStore(config, async ({ store, now }) => {
      // stdout carries the result as JSON; log lines (an unrouted number, say) go to stderr.
      const logger = pino({ level: config.logLevel }, destination(2));
      print(await simulateInbound({ store, now, logger, config }, { from, to, body }));
    });
  },
};
