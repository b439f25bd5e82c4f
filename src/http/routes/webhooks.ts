import { formatDateTime } from '../../domain/dates.js';
import { listDeliveries, replayDelivery } from '../../webhooks/deliveries.js';
import type { App, AppDeps } from '../app.js';
import { resource } from '../resource.js';
import { BadRequestBody, ForbiddenBody, NotFoundBody, adminErrors } from '../schemas/errors.js';
import {
  WebhookEndpointList,
  WebhookDeliveryList,
  WebhookDeliveryParams,
  WebhookDeliveryView,
  WebhookListQuery,
} from '../schemas/webhooks.js';

/** Webhook deliveries in the admin API (decisions §9); registered inside its authenticated scope. */
export function webhookAdminRoutes(app: App, deps: AppDeps): void {
  const { store, now } = deps;
  const base = { tags: ['admin'], security: [{ adminToken: [] }] };

  resource(app, '/webhooks', {
    GET: {
      schema: {
        ...base,
        operationId: 'listWebhookDeliveries',
        summary: 'Webhook deliveries with their attempts, newest first',
        querystring: WebhookListQuery,
        response: { 200: WebhookDeliveryList, 400: BadRequestBody, ...adminErrors },
      },
      handler: (request) => listDeliveries(store, request.query),
    },
  });

  resource(app, '/webhooks/:deliveryID/replay', {
    POST: {
      schema: {
        ...base,
        operationId: 'replayWebhookDelivery',
        summary: 'Send a failed delivery again (same webhook-id and body, fresh retry schedule)',
        description: '403 VAL_ILLEGAL when the delivery is not failed.',
        params: WebhookDeliveryParams,
        response: { 200: WebhookDeliveryView, 403: ForbiddenBody, 404: NotFoundBody, ...adminErrors },
      },
      handler: async (request) => {
        const replayed = await replayDelivery(store, request.params.deliveryID, now());
        // Due now: the engine need not wait for its next look at the queue.
        deps.wake?.();
        return replayed;
      },
    },
  });

  resource(app, '/webhooks/endpoints', {
    GET: {
      schema: {
        ...base,
        operationId: 'listWebhookEndpoints',
        summary: "Webhook receivers and their circuit breaker, as this node's sender sees them",
        description:
          'An endpoint that fails or times out repeatedly is paused (circuit open) with a growing backoff; ' +
          'its deliveries keep their schedule and nothing is lost. Each node answers for itself.',
        response: { 200: WebhookEndpointList, ...adminErrors },
      },
      handler: async () => ({
        endpoints: ((await deps.webhookEndpoints?.()) ?? []).map((e) => ({
          origin: e.origin,
          circuit: e.circuit,
          consecutive_failures: e.consecutiveFailures,
          reopens_at: e.reopensAt === null ? null : formatDateTime(e.reopensAt),
          in_flight: e.inFlight,
          waiting: e.waiting,
        })),
      }),
    },
  });
}
