import { Type } from '@sinclair/typebox';

export const HealthBody = Type.Object(
  { status: Type.Literal('ok') },
  { $id: 'Health', description: 'The process serves requests' },
);

const Checks = Type.Object(
  {
    database: Type.String({ description: "'ok', 'unreachable', or 'timeout' (no answer within 2 s)" }),
    migrations: Type.String({ description: "'ok', 'pending', or 'unknown' (the database did not answer)" }),
    engine: Type.String({
      description: "'ok', 'starting', 'failed', 'shutting down' or 'not running'",
    }),
  },
  { $id: 'ReadinessChecks', description: "Each check's 'ok', or why not" },
);

export const ReadyBody = Type.Object(
  { status: Type.Literal('ready'), checks: Checks },
  { $id: 'Ready', description: 'The database answers, migrations are applied and the engine runs' },
);

export const NotReadyBody = Type.Object(
  { status: Type.Literal('not_ready'), checks: Checks },
  { $id: 'NotReady', description: 'Not ready, or shutting down: send no traffic here' },
);

export const MetricsText = {
  description:
    'Prometheus text format (version 0.0.4): the smsgw_* metrics of decisions §12 plus process and event-loop metrics',
  content: { 'text/plain': { schema: Type.String() } },
};
