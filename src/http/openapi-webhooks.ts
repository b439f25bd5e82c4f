import type { TSchema } from '@sinclair/typebox';
import type { OpenAPIV3_1 } from 'openapi-types';
import {
  DetailedDeliveryReport,
  InboundMessageWebhook,
  RecipientDeliveryReport,
  SummaryDeliveryReport,
} from './schemas/webhook-payloads.js';

/**
 * The `webhooks` section of the OpenAPI document: the requests smsgw sends to callback and
 * inbound URLs (decisions §10), with their Standard Webhooks signature headers. No route
 * carries them, so they are written here; their bodies are the schemas of webhook-payloads.ts.
 */

export const WEBHOOK_HEADERS: Record<string, OpenAPIV3_1.ParameterObject> = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'Stable id of the delivery: the same on every attempt and replay, so a receiver can drop duplicates',
    schema: { type: 'string' },
    example: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds when this attempt was signed',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1763726400',
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Space-separated signatures `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed ' +
      "with the account's webhook_secret (the part after whsec_, base64-decoded); during the 24 hours after " +
      'a secret rotation, one per secret (Standard Webhooks)',
    schema: { type: 'string' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
};

function webhook(
  operationId: string,
  summary: string,
  description: string,
  schema: string,
): OpenAPIV3_1.PathItemObject {
  return {
    post: {
      operationId,
      summary,
      description,
      tags: ['webhooks'],
      security: [],
      parameters: Object.keys(WEBHOOK_HEADERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
      },
      responses: {
        '2XX': { description: 'Accepted: the delivery is complete' },
        '429': { description: 'Retried later, honouring Retry-After' },
        '4XX': { description: 'Refused: not retried (3xx neither)' },
        '5XX': { description: 'Retried on the SMSGW_WEBHOOK_RETRY schedule, as are timeouts and no answer' },
      },
    },
  };
}

const REPORT_TARGET =
  "Sent to the message's callbackURL, else the account's callback_url, for messages whose delivery_report is ";

export const webhooks: Record<string, OpenAPIV3_1.PathItemObject> = {
  summaryDeliveryReport: webhook(
    'summaryDeliveryReport',
    'Delivery report: summary',
    `${REPORT_TARGET}summary, once every recipient has a final status.`,
    'SummaryDeliveryReport',
  ),
  detailedDeliveryReport: webhook(
    'detailedDeliveryReport',
    'Delivery report: detailed',
    `${REPORT_TARGET}detailed, once every recipient has a final status.`,
    'DetailedDeliveryReport',
  ),
  recipientFinalDeliveryReport: webhook(
    'recipientFinalDeliveryReport',
    'Delivery report: per_recipient_final',
    `${REPORT_TARGET}per_recipient_final, once per recipient at its final status.`,
    'RecipientDeliveryReport',
  ),
  recipientDeliveryReport: webhook(
    'recipientDeliveryReport',
    'Delivery report: per_recipient',
    `${REPORT_TARGET}per_recipient, at each status change of a recipient after creation: submitted, sent, then the final status.`,
    'RecipientDeliveryReport',
  ),
  inboundMessage: webhook(
    'inboundMessage',
    'Inbound message',
    "Sent to the inbound number's inbound_url, else the account's inbound_url, when a message arrives.",
    'InboundMessageWebhook',
  ),
};

export const webhookPayloads: Record<string, TSchema> = {
  SummaryDeliveryReport,
  DetailedDeliveryReport,
  RecipientDeliveryReport,
  InboundMessageWebhook,
};
