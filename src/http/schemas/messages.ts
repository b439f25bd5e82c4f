import { Type } from '@sinclair/typebox';
import { DELIVERY_REPORT_TYPES } from '../../domain/delivery-report.js';
import { STATUSES, type Status } from '../../domain/status.js';
import { MESSAGE_SORT_FIELDS } from '../../store/port.js';
import {
  DateTime,
  DateTimeInput,
  DateTimeOutput,
  DateTimeQuery,
  Id,
  Limit,
  Msisdn,
  Nullable,
  NullableDeliveryWindow,
  NullableStringEnum,
  Offset,
  StringEnum,
} from './common.js';

export const MessageId = Id('Identifier of the message');

/** A recipient status (decisions §7). */
export const StatusName = StringEnum(STATUSES, {
  $id: 'Status',
  description:
    'pending and submitted wait, sent has reached the SMSC; delivered, cancelled, expired, aborted, ' +
    'rejected, failed, deleted and unknown are final',
});

const DELIVERY_REPORT_HELP =
  'summary: one report when every recipient is final, with counts per status; detailed: the same, with ' +
  'the recipients of each status; per_recipient_final: one report per recipient at its final status; ' +
  'per_recipient: one report per recipient at every status change; null: no reports';

/** A delivery report type, or null for none. */
export const DeliveryReportType = (description: string) =>
  NullableStringEnum(DELIVERY_REPORT_TYPES, { description: `${description}. ${DELIVERY_REPORT_HELP}` });

/** Each sort field ascending, or descending with a leading `-`. */
export function sortValues<const F extends readonly string[]>(fields: F) {
  return fields.flatMap((f) => [f, `-${f}`]);
}

export function sortParameter(fields: readonly string[]) {
  return Type.Array(StringEnum(sortValues(fields)), {
    description:
      `Sort fields, comma-separated or repeated, each with a leading - for descending: ${fields.join(', ')}. ` +
      'Default -messageID (newest first); ties break by messageID descending',
  });
}

export function sendSmsBody(maxRecipients: number) {
  return Type.Object(
    {
      to: Type.Array(Msisdn(), {
        minItems: 1,
        maxItems: maxRecipients,
        description: `Recipients, at most ${maxRecipients} (SMSGW_MAX_RECIPIENTS); duplicates are sent once`,
      }),
      from: Type.String({
        description:
          'Sender: an msisdn, or an alphanumeric id of 1–11 of A–Z a–z 0–9 space; validated for the account ' +
          'unless it may use any sender',
        examples: ['Acme'],
      }),
      body: Type.String({ minLength: 1, maxLength: 2000, description: 'Message text, 1–2000 characters' }),
      send_at: Type.Optional(DateTimeInput('When to send; default now')),
      expires_at: Type.Optional(DateTimeInput('Recipients not yet sent by then expire; not with ttl')),
      ttl: Type.Optional(
        Type.Unsafe<string | number | null>({
          type: ['string', 'integer', 'null'],
          minimum: 0,
          maximum: 9_999_999_999,
          description:
            'Seconds after send_at after which recipients not yet sent expire: a JSON integer or a string of ' +
            'digits (0 expires them at send_at); not with expires_at',
          examples: [3600, '3600'],
        }),
      ),
      num_parts_max: Type.Optional(
        Nullable(Type.Integer({ minimum: 1 }), {
          description: 'Refuse the message (200 with info) if it needs more parts than this',
        }),
      ),
      ref: Type.Optional(
        Nullable(Type.String({ maxLength: 80 }), { description: 'Client reference, included in reports' }),
      ),
      callbackURL: Type.Optional(
        Nullable(Type.String(), {
          description: "http(s) URL for this message's delivery reports; default the account's callback_url",
        }),
      ),
      delivery_report: Type.Optional(DeliveryReportType("Default: the account's delivery_report")),
      paused: Type.Optional(
        Nullable(Type.Boolean(), { description: 'true: accept the message but send it only when released' }),
      ),
      smart_encoding: Type.Optional(
        Nullable(Type.Boolean(), {
          description:
            'Replace look-alike characters (curly quotes, dashes, odd spaces…) by GSM-7 ones when that makes the ' +
            "whole body GSM-7; parts and credits follow the replaced body. Default: the account's smart_encoding",
        }),
      ),
      window: Type.Optional(
        NullableDeliveryWindow("Delivery window; default the account's window, null: send at any hour"),
      ),
    },
    { $id: 'SendSmsRequest', description: 'A message to send; unknown fields are ignored' },
  );
}

export const SendSmsCreated = Type.Object(
  {
    messageID: MessageId,
    num_parts: Type.Integer({ minimum: 1, description: 'Parts per recipient' }),
    num_recipients: Type.Integer({ minimum: 1, description: 'Unique recipients' }),
  },
  { $id: 'SendSmsCreated', description: 'The message was accepted' },
);

export const SendSmsRefused = Type.Object(
  {
    num_parts: Type.Integer({ minimum: 1, description: 'Parts the message needs' }),
    num_parts_max: Type.Integer({ minimum: 1, description: 'The num_parts_max given' }),
    info: Type.String({ description: 'Why the message was not sent' }),
  },
  {
    $id: 'SendSmsRefused',
    description: 'The message needs more parts than num_parts_max; it was not stored or sent',
  },
);

const outboundFields = {
  messageID: MessageId,
  to: Type.Array(Msisdn(), { description: 'Recipients' }),
  from: Type.String({ description: 'Sender: an msisdn with + or an alphanumeric id' }),
  body: Type.String(),
  send_at: DateTime('When the message is (or was) to be sent'),
  expires_at: DateTimeOutput('Recipients not yet sent by then expire; null: never'),
  ref: Nullable(Type.String(), { description: 'Client reference' }),
  callbackURL: Nullable(Type.String(), {
    description: 'Where its delivery reports go; null: the account default',
  }),
  paused: Type.Boolean({ description: 'Accepted paused and not released since' }),
};

const metaFields = {
  created_at: DateTime('When the message was accepted'),
  complete_at: DateTimeOutput('When every recipient reached a final status; null until then'),
  num_parts: Type.Integer({ minimum: 1, description: 'Parts per recipient' }),
  balance_used: Type.Integer({
    minimum: 0,
    description: 'Credits used: parts × recipients that reached the SMSC',
  }),
};

export const StatusCounts = Type.Object(
  Object.fromEntries(STATUSES.map((s) => [s, Type.Integer({ minimum: 0 })])) as Record<
    Status,
    ReturnType<typeof Type.Integer>
  >,
  { $id: 'StatusCounts', description: 'Recipients in each status; every status is present' },
);

const StatusMap = (description?: string) =>
  Type.Unsafe<Record<string, Status>>({
    type: 'object',
    additionalProperties: StatusName,
    description,
    examples: [{ '+61491570156': 'delivered', '+61491570150': 'sent' }],
  });

export const OutboundMessage = Type.Object(outboundFields, {
  $id: 'OutboundMessage',
  description: 'An outbound message',
});

export const OutboundMessageWithStatus = Type.Object(
  {
    ...outboundFields,
    to: StatusMap('Each recipient and its status'),
    status: StatusCounts,
  },
  { $id: 'OutboundMessageWithStatus', description: 'An outbound message with the status of each recipient' },
);

/** The read with options: `meta` fields and/or `status` fields, `to` a status map with `status`. */
export const OutboundMessageWithOptions = Type.Object(
  {
    ...outboundFields,
    to: Type.Union([Type.Array(Msisdn()), StatusMap()], {
      description: 'Recipients; with the status option, each recipient and its status',
    }),
    created_at: Type.Optional(metaFields.created_at),
    complete_at: Type.Optional(metaFields.complete_at),
    num_parts: Type.Optional(metaFields.num_parts),
    balance_used: Type.Optional(metaFields.balance_used),
    status: Type.Optional(StatusCounts),
  },
  {
    $id: 'OutboundMessageWithOptions',
    description:
      'An outbound message; with meta: created_at, complete_at, num_parts, balance_used; with status: ' +
      'status counts, and to maps each recipient to its status',
  },
);

/** Decisions §14: a POST repeated with the same key and body answers as the first did. */
export const SendSmsHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        '1–255 printable ASCII characters, per account, kept 24 hours: a repeat with the same key and an equal ' +
        'body gets the first answer (with Idempotent-Replayed: true) and creates nothing',
    }),
  ),
});

export const MessageIdParams = Type.Object({ messageID: MessageId });

export const READ_OPTIONS = ['meta', 'status', 'meta,status', 'status,meta'] as const;
export const MessageOptionsParams = Type.Object({
  messageID: MessageId,
  options: StringEnum(READ_OPTIONS, { description: 'meta, status, or both comma-separated' }),
});

export const OutboundListQuery = Type.Object(
  {
    from: Type.Optional(
      Type.Array(Type.String(), { description: 'Senders (msisdns or ids), comma-separated or repeated' }),
    ),
    to: Type.Optional(Msisdn('Messages with this recipient (one msisdn; + optional)')),
    status: Type.Optional(StatusName),
    ref: Type.Optional(Type.String({ description: 'Messages with this ref; empty: messages without one' })),
    paused: Type.Optional(Type.Boolean({ description: 'Paused (true) or not (false)' })),
    completed: Type.Optional(Type.Boolean({ description: 'Every recipient final (true) or not (false)' })),
    'messageID.min': Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    'messageID.max': Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    'created_at.min': Type.Optional(DateTimeQuery('Created at or after; default 24 hours ago')),
    'created_at.max': Type.Optional(DateTimeQuery('Created at or before')),
    limit: Type.Optional(Limit(0)),
    offset: Type.Optional(Offset),
    sort: Type.Optional(sortParameter(MESSAGE_SORT_FIELDS)),
  },
  { description: 'Every filter is optional' },
);

export const OutboundList = Type.Object(
  {
    data: Type.Array(OutboundMessage),
    more_results: Type.Boolean({ description: 'True exactly when more messages lie beyond offset + limit' }),
  },
  { $id: 'OutboundMessageList', description: 'A page of outbound messages' },
);

export const PatchMessageBody = Type.Object(
  {
    paused: Type.Boolean({ description: 'false releases a paused message; true pauses one still pending' }),
  },
  { $id: 'UpdateOutboundSmsRequest', description: 'Release or pause a message' },
);

export const SmsPreview = Type.Object(
  {
    num_parts: Type.Integer({ minimum: 1, description: 'Parts per recipient' }),
    encoding: StringEnum(['GSM-7', 'UCS-2'] as const, { description: 'Alphabet the body is sent in' }),
    characters: Type.Integer({
      minimum: 1,
      description: 'Characters (Unicode code points) of the body as sent',
    }),
    num_recipients: Type.Integer({ minimum: 1, description: 'Unique recipients, suppressed ones included' }),
    credits_needed: Type.Integer({
      minimum: 0,
      description: 'Credits the send would reserve: parts x recipients that are not suppressed',
    }),
    body: Type.String({ description: 'The body as it would be sent (after smart encoding)' }),
    recipients: Type.Array(
      Type.Object({
        msisdn: Msisdn('The recipient'),
        status: StringEnum(['ok', 'suppressed', 'no_route'] as const, {
          description:
            'ok: it would be sent; suppressed: on the suppression list, aborted with code 421 at no cost; ' +
            'no_route: no route matches it, so it would be aborted',
        }),
        connector: Nullable(Type.String(), { description: 'The connector tried first; null when none' }),
        send_at: DateTime('When it would be handed to the carrier: send_at, or later when its window opens'),
      }),
      { description: 'Each unique recipient, in the order given' },
    ),
  },
  { $id: 'SmsPreview', description: 'What POST /sms/message would do with this body; nothing was stored' },
);
