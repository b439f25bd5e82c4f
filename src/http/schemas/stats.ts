import { Type } from '@sinclair/typebox';
import { DateTime } from './common.js';

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const StatsView = Type.Object(
  {
    at: DateTime('When the figures were read'),
    counters: Type.Object(
      {
        accepted: count('Recipients accepted'),
        sent: count('Recipients the carrier accepted'),
        delivered: count('Recipients delivered'),
        failed: count('Recipients that reached a final status other than delivered or cancelled'),
        webhook_attempts: count('Webhook attempts made'),
      },
      {
        description:
          'Cumulative from an unspecified origin (they restart from 0 with the server): the difference ' +
          'between two reads divided by the time between them is a rate',
      },
    ),
    gauges: Type.Object(
      {
        pending: count('Recipients waiting to be due: scheduled, paused or outside their window'),
        submitted: count('Recipients queued for the carrier'),
        awaiting_receipt: count('Recipients the carrier accepted, waiting for their receipt'),
        webhooks_due: count('Webhook deliveries due now'),
        webhook_lag_seconds: Type.Number({
          minimum: 0,
          description: 'How long the oldest due webhook delivery has waited; 0 when none is due',
        }),
      },
      { description: 'What waits now, in the whole store' },
    ),
    connectors: Type.Array(
      Type.Object({
        name: Type.String(),
        bound: Type.Boolean(),
        in_flight: count('Submits awaiting the SMSC'),
        throughput: Type.Number({ minimum: 0, description: 'submit_sm per second, recently' }),
        submits: count('Submits made since the connector started (cumulative)'),
        errors: count('Errors seen since the connector started (cumulative)'),
      }),
      { description: 'SMPP connectors running on this node' },
    ),
  },
  { $id: 'Stats', description: 'The live dashboard: counters, gauges and connectors' },
);
