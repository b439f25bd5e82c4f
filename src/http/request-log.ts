import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { App } from './app.js';
import type { Logger } from 'pino';
import type { HttpMetrics } from '../metrics/http-metrics.js';

/** A client's own request id is kept if it is this safe to log and echo (decisions §12). */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Fastify's genReqId: the client's `x-request-id` when well-formed, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

/** The `route` of a request no route matched (an unknown path): one series, not one per path. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Every response carries `x-request-id`, and each request gives one log line and one count in
 * the HTTP metrics when its response is sent. The line names the route pattern, never the path
 * (paths and query strings carry phone numbers), and never a key or a body.
 *
 * It is written with the app's own logger: Fastify's usual child logger per request costs more
 * than the line itself at thousands of requests a second (childLoggerFactory in app.ts hands
 * out the root logger instead), so the request id is a field of the line.
 */
export function registerRequestLog(app: App, logger: Logger, metrics: HttpMetrics): void {
  const logLines = logger.isLevelEnabled('info');
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    metrics.observe(request.method, route, status, ms / 1000);
    if (logLines) {
      logger.info(
        {
          reqId: request.id,
          method: request.method,
          route,
          status,
          durationMs: Math.round(ms * 1000) / 1000,
          accountID: request.account?.id ?? null,
        },
        'request',
      );
    }
    done();
  });
}
