import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashApiKey, keyFromAuthorization } from '../app/api-keys.js';
import type { Account, Store } from '../store/port.js';
import { errorBody } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
}

/** The caller's account; routes behind `requireAccount` always have one. */
export function accountOf(request: { readonly account: Account | null }): Account {
  if (!request.account) throw new Error('route is missing the requireAccount hook');
  return request.account;
}

/**
 * onRequest hook for the public API: `Authorization: Bearer <key>` or the bare key (decisions
 * §2). It runs before the body is parsed and validated, so a request without a valid key is
 * 401 whatever its body holds.
 */
export function requireAccount(store: Store) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const key = keyFromAuthorization(request.headers.authorization);
    const account = key === null ? null : await store.accounts.findByKeyHash(hashApiKey(key));
    if (!account) return reply.code(401).send(errorBody.unauthorized());
    request.account = account;
  };
}

/** onRequest hook for the admin API: the configured token, compared in constant time; unset = refused. */
export function requireAdmin(adminToken: string | null) {
  return tokenCheck(adminToken);
}

/** onRequest hook for GET /metrics: the configured token if there is one; unset = open. */
export function requireBearer(token: string | null) {
  const check = tokenCheck(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (token !== null) return check(request, reply);
  };
}

function tokenCheck(token: string | null) {
  const expected = token === null ? null : digest(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const given = keyFromAuthorization(request.headers.authorization);
    // Digests have equal length, so timingSafeEqual never leaks the token's length.
    if (expected === null || given === null || !timingSafeEqual(digest(given), expected)) {
      return reply.code(401).send(errorBody.unauthorized());
    }
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
