import { randomUUID } from 'node:crypto';
import { STATUS_CODES as HTTP_STATUS_TEXT } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  AlreadyExistsError,
  ConflictError,
  IdempotencyError,
  NotFoundError,
  QueryError,
  ValidationError,
  ValidationType,
} from '../domain/errors.js';
import { JsonDepthError } from './json-body.js';
import { describeBodyError, describeParamError, describeQueryError } from './validation-errors.js';

/** Builders for the error bodies of interface.md; every error response goes through them. */
export const errorBody = {
  badRequest: (type: ValidationType, argument: string | null, error: string) => ({
    status_code: 400 as const,
    status_msg: 'Bad Request' as const,
    error,
    type,
    arguement: argument,
  }),
  forbidden: (type: ValidationType, argument: string | null, badValue: unknown, info: string) => ({
    status_code: 403 as const,
    status_msg: 'Forbidden' as const,
    error: info,
    type,
    arguement: argument,
    bad_value: badValue === undefined ? null : badValue,
    info,
  }),
  unauthorized: () => ({ status_code: 401 as const, status_msg: 'Unauthorized' as const }),
  notFound: (info: string) => ({ status_code: 404 as const, status_msg: 'Not Found' as const, info }),
  methodNotAllowed: (allow: readonly string[]) => ({
    status_code: 405 as const,
    status_msg: 'Method Not Allowed' as const,
    Allow: allow,
  }),
  conflict: (info: string) => ({ status_code: 409 as const, status_msg: 'Conflict' as const, info }),
  /** decisions §14, exactly as written there. */
  idempotencyInProgress: () => ({
    status_code: 409 as const,
    status_msg: 'Conflict' as const,
    type: 'IDEMPOTENCY_IN_PROGRESS' as const,
    arguement: 'Idempotency-Key' as const,
  }),
  idempotencyMismatch: () => ({
    status_code: 422 as const,
    status_msg: 'Unprocessable Entity' as const,
    type: 'IDEMPOTENCY_MISMATCH' as const,
    arguement: 'Idempotency-Key' as const,
  }),
  internal: () => ({ status_code: 500 as const, status_msg: 'Internal Server Error' as const }),
  generic: (status: number) => ({ status_code: status, status_msg: HTTP_STATUS_TEXT[status] ?? 'Error' }),
};

export { AlreadyExistsError };

/**
 * The one error handler: maps domain errors and Fastify's own (schema validation, JSON
 * parsing) to the bodies of interface.md. Anything unexpected is logged with its stack and
 * answered with a bare 500 body, so no internal detail reaches a client.
 */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ValidationError) {
    const d = error.detail;
    return d.httpStatus === 400
      ? reply.code(400).send(errorBody.badRequest(d.type, d.argument, d.info))
      : reply.code(403).send(errorBody.forbidden(d.type, d.argument, d.badValue, d.info));
  }
  if (error instanceof QueryError) {
    return reply
      .code(400)
      .send(errorBody.badRequest(ValidationType.ValIllegal, error.argument, error.message));
  }
  if (error instanceof NotFoundError) return reply.code(404).send(errorBody.notFound(error.message));
  if (error instanceof ConflictError) {
    return reply
      .code(403)
      .send(errorBody.forbidden(ValidationType.ValIllegal, error.argument, null, error.message));
  }
  if (error instanceof AlreadyExistsError) return reply.code(409).send(errorBody.conflict(error.message));
  if (error instanceof IdempotencyError) {
    return error.kind === 'mismatch'
      ? reply.code(422).send(errorBody.idempotencyMismatch())
      : reply.code(409).send(errorBody.idempotencyInProgress());
  }

  const first = error.validation?.[0];
  if (first !== undefined) {
    const context = error.validationContext;
    if (context === 'body') {
      const e = describeBodyError(first, request.body, request.routeOptions.schema?.body);
      return e.httpStatus === 400
        ? reply.code(400).send(errorBody.badRequest(e.type, e.argument, e.info))
        : reply.code(403).send(errorBody.forbidden(e.type, e.argument, e.badValue, e.info));
    }
    if (context === 'params') return reply.code(404).send(errorBody.notFound(describeParamError(first)));
    if (context === 'querystring' && first.keyword === 'required') {
      const name = String(first.params.missingProperty ?? '');
      return reply
        .code(400)
        .send(errorBody.badRequest(ValidationType.ArgMissing, name, `${name} is required`));
    }
    const { schema } = request.routeOptions;
    const { argument, info } =
      context === 'querystring'
        ? describeQueryError(first, request.query, schema?.querystring)
        : describeQueryError(first, request.headers, schema?.headers);
    return reply.code(400).send(errorBody.badRequest(ValidationType.ValIllegal, argument, info));
  }

  if (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP_')) {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // The rest of an oversized body is not worth reading to keep the connection.
      return reply.code(413).header('connection', 'close').send(errorBody.generic(413));
    }
    const why = error instanceof JsonDepthError ? error.message : 'The request body must be a JSON object';
    return reply.code(400).send(errorBody.badRequest(ValidationType.JsonInvalid, null, why));
  }

  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return reply.code(status).send(errorBody.generic(status));
  request.log.error({ err: error, reqId: request.id }, 'unexpected error');
  return reply.code(500).send(errorBody.internal());
}

/**
 * Fastify's own errors before routing (a path with bad percent-encoding, FST_ERR_BAD_URL): no
 * route can name such a path, so it is the 404 of any unknown path, in the error body of
 * interface.md instead of Fastify's.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // Framework errors skip the onRequest hooks that set it on every other response.
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_BAD_URL') return reply.code(404).send(errorBody.notFound('No such path'));
  return handleError(error, request, reply);
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers or URL over 16 KiB,
 * malformed request lines, request timeouts), answered in the error body of interface.md as
 * Fastify's default handler would otherwise answer in its own.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body = JSON.stringify(errorBody.generic(status));
  // Only while nothing of a response has gone out on this connection: a request timing out
  // mid-body has a response object, but a second status line after a first would corrupt it.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${HTTP_STATUS_TEXT[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nx-request-id: ${randomUUID()}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
