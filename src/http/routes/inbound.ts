import { listInbound, readInbound } from '../../app/read-inbound.js';
import type { App, AppDeps } from '../app.js';
import { accountOf, requireAccount } from '../auth.js';
import { resource } from '../resource.js';
import { BadRequestBody, ForbiddenBody, NotFoundBody, publicErrors } from '../schemas/errors.js';
import { InboundList, InboundListQuery, InboundMessage } from '../schemas/inbound.js';
import { MessageIdParams } from '../schemas/messages.js';

/** Reading inbound messages, scoped to the key's account (interface.md, GET /sms/inbound…). */
export function inboundRoutes(app: App, deps: AppDeps): void {
  const { store } = deps;
  const auth = requireAccount(store);
  const security = [{ apiKey: [] }];
  const tags = ['inbound'];

  resource(app, '/sms/inbound', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'indexInboundSms',
        tags,
        summary: 'List inbound messages',
        description: 'Newest first unless sorted otherwise; by default those received in the last 24 hours.',
        security,
        querystring: InboundListQuery,
        response: { 200: InboundList, 400: BadRequestBody, 403: ForbiddenBody, ...publicErrors },
      },
      handler: async (request) => listInbound(store, accountOf(request), request.query, deps.now()),
    },
  });

  resource(app, '/sms/inbound/:messageID', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'getInboundSms',
        tags,
        summary: 'Read an inbound message',
        security,
        params: MessageIdParams,
        response: { 200: InboundMessage, 404: NotFoundBody, ...publicErrors },
      },
      handler: async (request) => readInbound(store, accountOf(request), request.params.messageID),
    },
  });
}
