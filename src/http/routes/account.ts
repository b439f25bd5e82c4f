import { ownAccountView } from '../../app/directory.js';
import { listRecipients } from '../../app/read-recipients.js';
import { listDeliveries, replayDelivery } from '../../webhooks/deliveries.js';
import type { App, AppDeps } from '../app.js';
import { accountOf, requireAccount } from '../auth.js';
import { resource } from '../resource.js';
import { OwnAccount } from '../schemas/account.js';
import { BadRequestBody, ForbiddenBody, NotFoundBody, publicErrors } from '../schemas/errors.js';
import { RecipientList, RecipientListQuery } from '../schemas/recipients.js';
import {
  WebhookDeliveryList,
  WebhookDeliveryParams,
  WebhookDeliveryView,
  WebhookListQuery,
} from '../schemas/webhooks.js';

/**
 * Reads an account makes of its own data beyond interface.md, which the web console needs: the
 * balance and senders, each recipient's parts and attempts, and its webhook deliveries (with
 * replay), all scoped to the key's account like every other /v1 route.
 */
export function accountRoutes(app: App, deps: AppDeps): void {
  const { store } = deps;
  const auth = requireAccount(store);
  const security = [{ apiKey: [] }];

  resource(app, '/account', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'getOwnAccount',
        tags: ['account'],
        summary: "The key's account: credit balance, senders, inbound numbers and defaults",
        security,
        response: { 200: OwnAccount, ...publicErrors },
      },
      handler: (request) => ownAccountView(store, accountOf(request)),
    },
  });

  resource(app, '/sms/recipients', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'indexMessageRecipients',
        tags: ['outbound'],
        summary: "One message's recipients with status, code, times, parts and submit attempts",
        description: '400 ARG_MISSING without messageID; 404 when the account has no such message.',
        security,
        querystring: RecipientListQuery,
        response: { 200: RecipientList, 400: BadRequestBody, 404: NotFoundBody, ...publicErrors },
      },
      handler: (request) => listRecipients(store, accountOf(request), request.query),
    },
  });

  resource(app, '/webhooks', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'indexOwnWebhooks',
        tags: ['account'],
        summary: "The account's webhook deliveries with their attempts, newest first",
        security,
        querystring: WebhookListQuery,
        response: { 200: WebhookDeliveryList, 400: BadRequestBody, ...publicErrors },
      },
      handler: (request) => listDeliveries(store, request.query, accountOf(request).id),
    },
  });

  resource(app, '/webhooks/:deliveryID/replay', {
    POST: {
      onRequest: auth,
      schema: {
        operationId: 'replayOwnWebhook',
        tags: ['account'],
        summary: 'Send a failed delivery again (same webhook-id and body, fresh retry schedule)',
        description: '403 VAL_ILLEGAL when the delivery is not failed.',
        security,
        params: WebhookDeliveryParams,
        response: { 200: WebhookDeliveryView, 403: ForbiddenBody, 404: NotFoundBody, ...publicErrors },
      },
      handler: (request) =>
        replayDelivery(store, request.params.deliveryID, deps.now(), accountOf(request).id),
    },
  });
}
