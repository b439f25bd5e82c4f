import { Type } from '@sinclair/typebox';
import { DateTimeOutput, Nullable } from './common.js';

export const WebhookListQuery = Type.Object({
  messageID: Type.Optional(Type.String({ description: 'Outbound or inbound messageID' })),
  kind: Type.Optional(Type.String({ description: 'delivery_report or inbound' })),
  state: Type.Optional(Type.String({ description: 'pending, delivered or failed (given up)' })),
  limit: Type.Optional(Type.String({ description: 'Default 100, maximum 500' })),
  offset: Type.Optional(Type.String()),
});

export const WebhookDeliveryParams = Type.Object({ deliveryID: Type.String() });

export const WebhookAttemptView = Type.Object({
  attempted_at: Type.String({ format: 'date-time' }),
  status: Nullable(Type.Integer({ description: 'HTTP status; null when there was no response' })),
  duration_ms: Type.Integer(),
  error: Nullable(Type.String({ description: 'Why there was no response: timeout, connection refused, …' })),
  response_excerpt: Nullable(Type.String({ description: 'The first bytes of the response body' })),
});

export const WebhookDeliveryView = Type.Object({
  deliveryID: Type.Integer(),
  webhook_id: Type.String({ description: 'Sent as the webhook-id header on every attempt and replay' }),
  kind: Type.Union([Type.Literal('delivery_report'), Type.Literal('inbound')]),
  messageID: Type.Integer(),
  url: Type.String(),
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Array(WebhookAttemptView),
  created_at: Type.String({ format: 'date-time' }),
  next_attempt_at: { ...DateTimeOutput, description: 'When a pending delivery is next tried' },
  completed_at: DateTimeOutput,
});

export const WebhookDeliveryList = Type.Object({
  data: Type.Array(WebhookDeliveryView),
  more_results: Type.Boolean(),
});
