import { Type } from '@sinclair/typebox';
import { STATUS_CODES } from '../../domain/status.js';
import { DateTime, Id, Msisdn, Nullable } from './common.js';
import { StatusCounts, StatusName } from './messages.js';

/**
 * The webhook bodies of interface.md "Events" (built in src/webhooks/payloads.ts), for the
 * `webhooks` section of the OpenAPI document: what a receiver gets, so it can generate its
 * types from the same document as a client.
 */

const reportFields = (balance: string) => ({
  tstamp: DateTime('When the report was made (the last status change it reports)'),
  message_type: Type.Literal('sms'),
  ref: Nullable(Type.String(), { description: 'The ref given with the message' }),
  messageID: Id('The outbound message'),
  balance_used: Type.Integer({ minimum: 0, description: balance }),
});

const MESSAGE_BALANCE = 'Credits used by the message: parts × recipients that reached the SMSC';

export const SummaryDeliveryReport = Type.Object(
  {
    ...reportFields(MESSAGE_BALANCE),
    statuses: StatusCounts,
    callback_type: Type.Literal('summary_delivery_report'),
  },
  {
    $id: 'SummaryDeliveryReport',
    description: 'delivery_report summary: sent once, when every recipient has a final status',
  },
);

export const DetailedDeliveryReport = Type.Object(
  {
    ...reportFields(MESSAGE_BALANCE),
    statuses: Type.Unsafe<Record<string, { status: string; recipients: string[] }>>({
      type: 'object',
      description: 'Keyed by status code (as a string), only the codes some recipient holds',
      propertyNames: { pattern: '^[0-9]{3}$' },
      additionalProperties: Type.Object({
        status: StatusName,
        recipients: Type.Array(Msisdn('A recipient with that status')),
      }),
      examples: [{ '200': { status: 'delivered', recipients: ['+61491570156'] } }],
    }),
    callback_type: Type.Literal('summary_delivery_report', {
      description: 'interface.md gives the detailed report the summary report callback_type',
    }),
  },
  {
    $id: 'DetailedDeliveryReport',
    description:
      'delivery_report detailed: sent once, when every recipient has a final status, with the recipients of each status',
  },
);

export const RecipientDeliveryReport = Type.Object(
  {
    ...reportFields("This recipient's share: num_parts once it reached the SMSC, else 0"),
    status: StatusName,
    status_code: Type.Integer({
      description: 'Code of the status (decisions §7); finer codes may map to the same status',
      examples: [STATUS_CODES.delivered],
    }),
    recipients: Msisdn('The one recipient this report is about (the field name is plural)'),
    callback_type: Type.Literal('recipient_delivery_report'),
  },
  {
    $id: 'RecipientDeliveryReport',
    description:
      'delivery_report per_recipient_final (once per recipient, at its final status) or per_recipient ' +
      '(at each status change after creation: submitted, sent, then the final one)',
  },
);

export const InboundMessageWebhook = Type.Object(
  {
    messageID: Id('The inbound message'),
    from: Msisdn('The number it came from'),
    to: Msisdn('The number it was sent to'),
    body: Type.String(),
    ref: Nullable(Type.String(), { description: 'Reference of the number it was sent to' }),
    tstamp: DateTime('When it was received'),
    callback_type: Type.Literal('inbound_message'),
    message_type: Type.Literal('sms'),
  },
  { $id: 'InboundMessageWebhook', description: 'An inbound message, sent to the inbound_url' },
);
