import { Type } from '@sinclair/typebox';
import { DELIVERY_KINDS, DELIVERY_STATES } from '../../store/webhooks.js';
import { DateTime, DateTimeOutput, Id, Limit, Nullable, Offset, StringEnum } from './common.js';

const DeliveryKind = StringEnum(DELIVERY_KINDS, {
  description: 'delivery_report (to a callbackURL) or inbound (to an inbound_url)',
});
const DeliveryState = StringEnum(DELIVERY_STATES, {
  description: 'pending (not yet accepted, retries due), delivered (a 2xx accepted it) or failed (given up)',
});

export const WebhookListQuery = Type.Object({
  messageID: Type.Optional(Id('Outbound or inbound messageID')),
  kind: Type.Optional(DeliveryKind),
  state: Type.Optional(DeliveryState),
  limit: Type.Optional(Limit(1)),
  offset: Type.Optional(Offset),
});

export const WebhookDeliveryParams = Type.Object({ deliveryID: Id('Identifier of the delivery') });

export const WebhookAttemptView = Type.Object(
  {
    attempted_at: DateTime(),
    status: Nullable(Type.Integer(), { description: 'HTTP status; null when there was no response' }),
    duration_ms: Type.Integer({ minimum: 0 }),
    error: Nullable(Type.String(), {
      description: 'Why there was no response: timeout, connection refused, …',
    }),
    response_excerpt: Nullable(Type.String(), { description: 'The first bytes of the response body' }),
  },
  { $id: 'WebhookAttempt', description: 'One attempt to deliver a webhook' },
);

export const WebhookDeliveryView = Type.Object(
  {
    deliveryID: Id('Identifier of the delivery'),
    webhook_id: Type.String({ description: 'Sent as the webhook-id header on every attempt and replay' }),
    kind: DeliveryKind,
    messageID: Id('The outbound or inbound message it reports'),
    url: Type.String(),
    state: DeliveryState,
    attempts: Type.Array(WebhookAttemptView),
    created_at: DateTime(),
    next_attempt_at: DateTimeOutput('When a pending delivery is next tried; null otherwise'),
    completed_at: DateTimeOutput('When it was accepted or given up on'),
  },
  { $id: 'WebhookDelivery', description: 'A webhook delivery with its attempts' },
);

export const WebhookDeliveryList = Type.Object(
  {
    data: Type.Array(WebhookDeliveryView),
    more_results: Type.Boolean({
      description: 'True exactly when more deliveries lie beyond offset + limit',
    }),
  },
  { $id: 'WebhookDeliveryList', description: 'Webhook deliveries, newest first' },
);

export const WEBHOOK_CIRCUITS = ['closed', 'open', 'probing'] as const;

export const WebhookEndpointView = Type.Object(
  {
    origin: Type.String({
      description: 'Scheme, host and port the deliveries go to',
      examples: ['https://hooks.example.com'],
    }),
    circuit: StringEnum(WEBHOOK_CIRCUITS, {
      description:
        'closed: sending; open: paused after failures in a row, until reopens_at (its deliveries keep their schedule); probing: one attempt decides',
    }),
    consecutive_failures: Type.Integer({
      minimum: 0,
      description: 'Attempts in a row with no answer, 429 or 5xx',
    }),
    reopens_at: DateTimeOutput('When an open circuit lets one attempt through; null otherwise'),
    in_flight: Type.Integer({ minimum: 0, description: 'Attempts to it running now' }),
    waiting: Type.Integer({
      minimum: 0,
      description: 'Deliveries this node holds for it, waiting for a turn',
    }),
  },
  { $id: 'WebhookEndpoint', description: "A webhook receiver's state in this node's sender" },
);

export const WebhookEndpointList = Type.Object(
  { endpoints: Type.Array(WebhookEndpointView) },
  {
    $id: 'WebhookEndpointList',
    description:
      'The receivers this node has deliveries in hand for, and those whose circuit is not closed; each node keeps its own',
  },
);
