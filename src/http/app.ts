import type { IncomingMessage, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Store } from '../store/port.js';
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
import { validatorCompiler } from './validation.js';

export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly now: () => number;
  /** Wakes the sending engine when new work may be due. */
  readonly wake?: () => void;
  /** Live state of each running SMPP connector, for the admin API. */
  readonly connectorStates?: () => Promise<Record<string, unknown>>;
  /** Connectors or routes changed through the admin API: reload the router now. */
  readonly onRoutingChanged?: () => void;
  /** The live dashboard's counters and gauges; default: read from the store. */
  readonly stats?: () => Promise<Stats>;
  /** The built web console (index.html and assets/); null or absent: not served. */
  readonly consoleDir?: string | null;
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
  const app: App = Fastify({
    loggerInstance: deps.logger,
    // Per-request log lines would cost more than the request itself at bulk rates.
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    routerOptions: { ignoreTrailingSlash: true },
    // Room for SMSGW_MAX_RECIPIENTS numbers of ~20 bytes each plus the body.
    bodyLimit: Math.max(1 << 20, deps.config.maxRecipients * 40 + (64 << 10)),
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.decorateRequest('account', null);
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
      docsRoutes(v1);
    },
    { prefix: '/v1' },
  );
  const stats =
    deps.stats ??
    createStoreStats({ store: deps.store, now: deps.now, connectorStates: deps.connectorStates });
  await app.register(async (admin: App) => adminRoutes(admin, { ...deps, stats }), { prefix: '/admin/v1' });
  await app.register(async (ui: App) => consoleRoutes(ui, deps.consoleDir ?? null));
  return app;
}
