import type { FastifyInstance, HTTPMethods, RouteOptions } from 'fastify';
import { errorBody } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** OPTIONS and 405 routes: they reveal nothing, so they answer without credentials. */
    protocolEdge?: boolean;
  }
}

type Handlers = Partial<
  Record<'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', Omit<RouteOptions, 'method' | 'url'>>
>;

/** Methods a client might try on any path; those a path does not support get 405. */
const KNOWN_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'];

/**
 * Registers one path with its methods, plus OPTIONS (200, `Allow`, JSON array; no key needed)
 * and 405 with `Allow` for every other method (decisions §3). Every path of the API goes
 * through here, so the protocol edges cannot differ between endpoints.
 */
export function resource(app: FastifyInstance, url: string, handlers: Handlers): void {
  const methods = Object.keys(handlers) as (keyof Handlers)[];
  const allow = [...methods, 'OPTIONS'];
  for (const method of methods) app.route({ ...handlers[method]!, method, url });
  app.route({
    method: 'OPTIONS',
    url,
    schema: { hide: true },
    config: { protocolEdge: true },
    handler: (_request, reply) => reply.header('Allow', allow.join(', ')).send(allow),
  });
  const others = KNOWN_METHODS.filter((m) => !allow.includes(m));
  app.route({
    method: others,
    url,
    schema: { hide: true },
    config: { protocolEdge: true },
    handler: (_request, reply) =>
      reply.code(405).header('Allow', allow.join(', ')).send(errorBody.methodNotAllowed(allow)),
  });
}
