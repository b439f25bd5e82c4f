import type { FastifyInstance } from 'fastify';
import { checkReadiness } from '../../app/readiness.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { AppDeps } from '../app.js';
import { requireBearer } from '../auth.js';
import { resource } from '../resource.js';
import { UnauthorizedBody, commonErrors } from '../schemas/errors.js';
import { HealthBody, MetricsText, NotReadyBody, ReadyBody } from '../schemas/operations.js';

/** decisions §12: probes and metrics, outside /v1 and without an API key. */
export function operationsRoutes(app: FastifyInstance, deps: AppDeps, metrics: Metrics): void {
  const tags = ['operations'];

  resource(app, '/healthz', {
    GET: {
      schema: {
        tags,
        summary: 'Liveness: 200 while the process serves requests',
        response: { 200: HealthBody },
      },
      handler: async () => ({ status: 'ok' }),
    },
  });

  resource(app, '/readyz', {
    GET: {
      schema: {
        tags,
        summary:
          'Readiness: 200 when the database answers, migrations are applied and the sending engine runs; 503 otherwise and from the moment a shutdown starts',
        response: { 200: ReadyBody, 503: NotReadyBody },
      },
      handler: async (_request, reply) => {
        const { ready, checks } = await checkReadiness(deps.store, deps.lifecycle);
        return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
      },
    },
  });

  resource(app, '/metrics', {
    GET: {
      onRequest: requireBearer(deps.config.metricsToken),
      schema: {
        tags,
        summary:
          "This node's metrics for Prometheus; with SMSGW_METRICS_TOKEN set, Authorization: Bearer <token>",
        ...(deps.config.metricsToken !== null && { security: [{ metricsToken: [] }] }),
        response: { 200: MetricsText, 401: UnauthorizedBody, 500: commonErrors[500] },
      },
      handler: async (_request, reply) => {
        const { contentType, text } = await metrics.scrape();
        return reply.type(contentType).send(text);
      },
    },
  });
}
