import { checkReadiness } from '../../app/readiness.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { App, AppDeps } from '../app.js';
import { requireBearer } from '../auth.js';
import { resource } from '../resource.js';
import { MethodNotAllowedBody, ServerErrorBody, UnauthorizedBody } from '../schemas/errors.js';
import { HealthBody, MetricsText, NotReadyBody, ReadyBody } from '../schemas/operations.js';

/** decisions §12: probes and metrics, outside /v1 and without an API key. */
export function operationsRoutes(app: App, deps: AppDeps, metrics: Metrics): void {
  const tags = ['operations'];
  const errors = { 405: MethodNotAllowedBody, 500: ServerErrorBody };

  resource(app, '/healthz', {
    GET: {
      schema: {
        operationId: 'getHealth',
        tags,
        summary: 'Liveness: 200 while the process serves requests',
        security: [],
        response: { 200: HealthBody, ...errors },
      },
      handler: async () => ({ status: 'ok' as const }),
    },
  });

  resource(app, '/readyz', {
    GET: {
      schema: {
        operationId: 'getReadiness',
        tags,
        summary: 'Readiness: whether this node should receive traffic',
        description:
          '200 when the database answers, migrations are applied and the sending engine runs; 503 otherwise, ' +
          'and from the moment a shutdown starts.',
        security: [],
        response: { 200: ReadyBody, 503: NotReadyBody, ...errors },
      },
      handler: async (_request, reply) => {
        const { ready, checks } = await checkReadiness(deps.store, deps.lifecycle);
        return ready
          ? reply.code(200).send({ status: 'ready', checks })
          : reply.code(503).send({ status: 'not_ready', checks });
      },
    },
  });

  resource(app, '/metrics', {
    GET: {
      onRequest: requireBearer(deps.config.metricsToken),
      schema: {
        operationId: 'getMetrics',
        tags,
        summary: "This node's metrics for Prometheus",
        description: 'Open unless SMSGW_METRICS_TOKEN is set; then it takes Authorization: Bearer <token>.',
        // Either no credentials (the token unset) or the token: OpenAPI's optional security.
        security: [{}, { metricsToken: [] }],
        response: { 200: MetricsText, 401: UnauthorizedBody, ...errors },
      },
      handler: async (_request, reply) => {
        const { contentType, text } = await metrics.scrape();
        return reply.type(contentType).send(text);
      },
    },
  });
}
