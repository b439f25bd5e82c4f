import { Type } from '@sinclair/typebox';

export const HealthBody = Type.Object(
  { status: Type.Literal('ok') },
  { description: 'The process serves requests' },
);

const Checks = Type.Object({
  database: Type.String({ description: "'ok', 'unreachable' or 'timeout'" }),
  migrations: Type.String({ description: "'ok', 'pending' or 'unknown' (database down)" }),
  engine: Type.String({ description: "'ok', 'starting', 'failed' or 'shutting down'" }),
});

export const ReadyBody = Type.Object({ status: Type.Literal('ready'), checks: Checks });
export const NotReadyBody = Type.Object(
  { status: Type.Literal('not_ready'), checks: Checks },
  { description: 'Not ready, or shutting down: send no traffic here' },
);

export const MetricsText = {
  description:
    'Prometheus text format (version 0.0.4): smsgw_* metrics of decisions §12 plus process and event-loop metrics',
  content: { 'text/plain': { schema: Type.String() } },
};
