import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { RawQuery } from '../../app/list-query.js';
import { listInbound, readInbound } from '../../app/read-inbound.js';
import type { AppDeps } from '../app.js';
import { accountOf, requireAccount } from '../auth.js';
import { resource } from '../resource.js';
import { BadRequestBody, NotFoundBody, accountErrors } from '../schemas/errors.js';
import { InboundList, InboundListQuery, InboundMessage } from '../schemas/inbound.js';
import { MessageIdParams } from '../schemas/messages.js';

/** Reading inbound messages, scoped to the key's account (interface.md, GET /sms/inbound…). */
export function inboundRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store } = deps;
  const auth = requireAccount(store);
  const security = [{ apiKey: [] }];

  resource(app, '/sms/inbound', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'indexInboundSms',
        tags: ['inbound'],
        summary: 'List inbound messages',
        security,
        querystring: InboundListQuery,
        response: { 200: InboundList, 400: BadRequestBody, ...accountErrors },
      },
      handler: async (request) =>
        listInbound(store, accountOf(request), request.query as RawQuery, deps.now()),
    },
  });

  resource(app, '/sms/inbound/:messageID', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'getInboundSms',
        tags: ['inbound'],
        summary: 'Read an inbound message',
        security,
        params: MessageIdParams,
        response: { 200: InboundMessage, 404: NotFoundBody, ...accountErrors },
      },
      handler: async (request) =>
        readInbound(store, accountOf(request), (request.params as Static<typeof MessageIdParams>).messageID),
    },
  });
}
