import type { IncomingMessage, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { Logger } from 'pino';
import type { Lifecycle } from '../app/readiness.js';
import type { EndpointState } from '../webhooks/sender.js';
import type { Config } from '../config/config.js';
import { createMetrics, type Metrics } from '../metrics/metrics.js';
import type { QueuedWork, Store } from '../store/port.js';
import { errorBody, handleClientError, handleError, handleFrameworkError } from './errors.js';
import { createStoreStats, type Stats } from '../app/stats.js';
import { parseJsonBody } from './json-body.js';
import { openApiOptions } from './openapi.js';
import { accountRoutes } from './routes/account.js';
import { adminRoutes } from './routes/admin.js';
import { consoleRoutes } from './routes/console.js';
import { docsRoutes } from './routes/docs.js';
import { inboundRoutes } from './routes/inbound.js';
import { messageRoutes } from './routes/messages.js';
import { operationsRoutes } from './routes/operations.js';
import { suppressionRoutes } from './routes/suppressions.js';
import { registerRateLimit } from './rate-limit.js';
import { registerRequestLog, requestIdOf } from './request-log.js';
import { validatorCompiler } from './validation.js';

export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly now: () => number;
  /** Wakes the engine for these kinds of work; for every kind when none are named. */
  readonly wake?: (kinds?: readonly QueuedWork[]) => void;
  /** Live state of each running SMPP connector, for the admin API. */
  readonly connectorStates?: () => Promise<Record<string, unknown>>;
  /** This node's webhook receivers and their circuit breakers, for the admin API. */
  readonly webhookEndpoints?: () => Promise<readonly EndpointState[]>;
  /** Connectors or routes changed through the admin API: reload the router now. */
  readonly onRoutingChanged?: () => void;
  /** The live dashboard's counters and gauges; default: read from the store. */
  readonly stats?: () => Promise<Stats>;
  /** The built web console (index.html and assets/); null or absent: not served. */
  readonly consoleDir?: string | null;
  /** The engine's state and whether a shutdown has begun, for GET /readyz; absent: not ready. */
  readonly lifecycle?: Lifecycle;
  /** This node's metrics; absent: the app makes its own (the engine's then read zero). */
  readonly metrics?: Metrics;
}

/** The Fastify instance with TypeBox types: route handlers are typed by their schemas. */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  Logger,
  TypeBoxTypeProvider
>;

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config } = deps;
  const metrics =
    deps.metrics ??
    createMetrics({
      queueDepth: (now) => deps.store.operations.queueDepth(now),
      now: deps.now,
      logger: deps.logger,
    });
  const app: App = Fastify({
    loggerInstance: deps.logger,
    // Fastify's own two lines per request, through a child logger each, cost more than the
    // request itself at bulk rates; registerRequestLog writes one line instead.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger) => logger,
    genReqId: requestIdOf,
    exposeHeadRoutes: false,
    routerOptions: { ignoreTrailingSlash: true },
    ...clientLimits(config),
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Connections beyond this are closed as they arrive, before they cost any memory.
  app.server.maxConnections = config.maxConnections;
  app.decorateRequest('account', null);
  registerRequestLog(app, deps.logger, metrics.http);
  registerRateLimit(app, deps.now);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(String(body)));
    } catch (error) {
      done(error instanceof Error ? error : new SyntaxError(String(error)), undefined);
    }
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody.notFound('No such path')));

  await app.register(swagger, openApiOptions);
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await app.register(
    async (v1: App) => {
      messageRoutes(v1, deps);
      inboundRoutes(v1, deps);
      accountRoutes(v1, deps);
      suppressionRoutes(v1, deps);
      docsRoutes(v1);
    },
    { prefix: '/v1' },
  );
  const stats =
    deps.stats ??
    createStoreStats({ store: deps.store, now: deps.now, connectorStates: deps.connectorStates });
  await app.register(async (admin: App) => adminRoutes(admin, { ...deps, stats, metrics }), {
    prefix: '/admin/v1',
  });
  await app.register(async (ui: App) => consoleRoutes(ui, deps.consoleDir ?? null));
  await app.register(async (operations: App) => operationsRoutes(operations, deps, metrics));
  return app;
}

/**
 * Hostile or broken clients (decisions §12): a request must arrive whole within
 * SMSGW_REQUEST_TIMEOUT_MS, headers included, or it is answered 408 and its connection closed
 * (Node checks every connection on an interval, so a stalled one is cut at most that interval
 * late), and a body is read only up to SMSGW_MAX_BODY_BYTES. Stalled uploads therefore hold
 * their memory for one timeout at most.
 */
function clientLimits(config: Config) {
  const timeout = config.requestTimeoutMs;
  return {
    bodyLimit: config.maxBodyBytes,
    requestTimeout: timeout,
    http: {
      requestTimeout: timeout,
      headersTimeout: Math.min(timeout, 60_000),
      connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(timeout / 4))),
    },
    // A request arriving on a kept-alive connection while the server closes is served (with
    // Connection: close) instead of Fastify's own 503 body, which is not the seed's error shape.
    return503OnClosing: false,
  };
}
