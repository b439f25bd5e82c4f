import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type {
  ContextConfigDefault,
  FastifySchema,
  HTTPMethods,
  RawServerDefault,
  RouteGenericInterface,
  RouteShorthandOptionsWithHandler,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from './app.js';
import { errorBody } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** OPTIONS and 405 routes: they reveal nothing, so they answer without credentials. */
    protocolEdge?: boolean;
  }
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/**
 * What a route must say about itself: an operation of the OpenAPI document has an operationId,
 * a summary and tags (the linter and client generators rely on them), unless it is hidden.
 */
export type OperationSchema = FastifySchema &
  ({ operationId: string; summary: string; tags: readonly string[] } | { hide: true });

/**
 * One method of a path, typed by its schema: the TypeBox provider gives the handler the
 * request's params, query and body as the schema declares them, and checks what it answers
 * against the response schemas (which also serialize it: no field outside them is sent).
 */
export type Operation<S extends FastifySchema> = RouteShorthandOptionsWithHandler<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider,
  Logger
>;

/** Methods a client might try on any path; those a path does not support get 405. */
const KNOWN_METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'];

/**
 * Registers one path with its methods, plus OPTIONS (200, `Allow`, JSON array; no key needed)
 * and 405 with `Allow` for every other method (decisions §3). Every path of the API goes
 * through here, so the protocol edges cannot differ between endpoints. Each method's schema
 * is inferred on its own, so each handler is typed by its own schema.
 */
export function resource<S extends { [M in Method]?: OperationSchema }>(
  app: App,
  url: string,
  operations: { [M in keyof S]: Operation<S[M] & FastifySchema> },
): void {
  const methods = Object.keys(operations) as (keyof S & Method)[];
  for (const method of methods) app.route({ ...operations[method], method, url });
  const allow = [...methods, 'OPTIONS'];
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
