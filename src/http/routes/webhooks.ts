import type { FastifyInstance } from 'fastify';
import type { RawQuery } from '../../app/list-query.js';
import { listDeliveries, replayDelivery } from '../../webhooks/deliveries.js';
import type { AppDeps } from '../app.js';
import { resource } from '../resource.js';
import { BadRequestBody, ForbiddenBody, NotFoundBody, commonErrors } from '../schemas/errors.js';
import {
  WebhookDeliveryList,
  WebhookDeliveryParams,
  WebhookDeliveryView,
  WebhookListQuery,
} from '../schemas/webhooks.js';

/** Webhook deliveries in the admin API (decisions §9); registered inside its authenticated scope. */
export function webhookAdminRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { store, now } = deps;
  const base = { tags: ['admin'], security: [{ adminToken: [] }] };

  resource(app, '/webhooks', {
    GET: {
      schema: {
        ...base,
        summary: 'Webhook deliveries with their attempts, newest first',
        querystring: WebhookListQuery,
        response: { 200: WebhookDeliveryList, 400: BadRequestBody, ...commonErrors },
      },
      handler: (request) => listDeliveries(store, request.query as RawQuery),
    },
  });

  resource(app, '/webhooks/:deliveryID/replay', {
    POST: {
      schema: {
        ...base,
        summary: 'Send a failed delivery again (same webhook-id and body, fresh retry schedule)',
        params: WebhookDeliveryParams,
        response: { 200: WebhookDeliveryView, 403: ForbiddenBody, 404: NotFoundBody, ...commonErrors },
      },
      handler: async (request) => {
        const view = await replayDelivery(
          store,
          (request.params as { deliveryID: string }).deliveryID,
          now(),
        );
        return view;
      },
    },
  });
}
