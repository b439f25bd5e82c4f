import { Type } from '@sinclair/typebox';
import { DELIVERY_REPORT_TYPES } from '../../domain/delivery-report.js';
import { STATUSES } from '../../domain/status.js';
import {
  DateTimeInput,
  DateTimeOutput,
  IdParam,
  Msisdn,
  Nullable,
  NullableString,
  StringOrList,
} from './common.js';

export function sendSmsBody(maxRecipients: number) {
  return Type.Object(
    {
      to: Type.Array(Msisdn, {
        minItems: 1,
        maxItems: maxRecipients,
        description: 'Recipients; duplicates are sent once',
      }),
      from: Type.String({
        description: 'Sender: a validated msisdn, or an alphanumeric id of 1–11 characters',
      }),
      body: Type.String({ minLength: 1, maxLength: 2000, description: 'Message text, 1–2000 characters' }),
      send_at: Type.Optional(Nullable(DateTimeInput)),
      expires_at: Type.Optional(Nullable(DateTimeInput)),
      ttl: Type.Optional(
        Nullable(
          Type.Union([Type.String(), Type.Integer()], {
            description: 'Seconds after send_at after which the message expires; not with expires_at',
          }),
        ),
      ),
      num_parts_max: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
      ref: Type.Optional(Nullable(Type.String({ maxLength: 80 }))),
      callbackURL: Type.Optional(Nullable(Type.String({ description: 'http(s) URL for delivery reports' }))),
      delivery_report: Type.Optional(
        Nullable(
          Type.Union(
            DELIVERY_REPORT_TYPES.map((t) => Type.Literal(t)),
            { description: 'null disables reports' },
          ),
        ),
      ),
      paused: Type.Optional(Nullable(Type.Boolean())),
    },
    { description: 'Unknown fields are ignored' },
  );
}

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Idempotency-Key (1–255 printable ASCII), kept 24 hours per account: a repeat with an equal JSON body gets the ' +
        'first answer again (header Idempotent-Replayed: true) and sends nothing; with another body, 422; while the ' +
        'first runs, 409. Only successful answers are kept.',
    }),
  ),
});

export const SendSmsCreated = Type.Object({
  messageID: Type.Integer(),
  num_parts: Type.Integer(),
  num_recipients: Type.Integer(),
});

export const SendSmsRefused = Type.Object({
  num_parts: Type.Integer(),
  num_parts_max: Type.Integer(),
  info: Type.String(),
});

const outboundFields = {
  messageID: Type.Integer(),
  // Placeholder keeps `to` second, as the interface lists it; each shape below replaces it.
  to: Type.Array(Type.String()),
  from: Type.String(),
  body: Type.String(),
  send_at: DateTimeOutput,
  expires_at: DateTimeOutput,
  ref: NullableString(),
  callbackURL: NullableString(),
  paused: Type.Boolean(),
};

const metaFields = {
  created_at: DateTimeOutput,
  complete_at: DateTimeOutput,
  num_parts: Type.Integer(),
  balance_used: Type.Integer(),
};

export const StatusCountsSchema = Type.Object(
  Object.fromEntries(STATUSES.map((s) => [s, Type.Integer()])) as Record<
    (typeof STATUSES)[number],
    ReturnType<typeof Type.Integer>
  >,
);

export const OutboundMessage = Type.Object(
  { ...outboundFields, to: Type.Array(Type.String()) },
  { $id: 'OutboundMessage' },
);

/** The read with options: `meta` fields and/or `status` fields, `to` a status map with `status`. */
export const OutboundMessageWithOptions = Type.Object({
  ...outboundFields,
  to: Type.Union([Type.Array(Type.String()), Type.Record(Type.String(), Type.String())]),
  created_at: Type.Optional(metaFields.created_at),
  complete_at: Type.Optional(metaFields.complete_at),
  num_parts: Type.Optional(metaFields.num_parts),
  balance_used: Type.Optional(metaFields.balance_used),
  status: Type.Optional(StatusCountsSchema),
});

export const MessageIdParams = Type.Object({ messageID: IdParam });
export const MessageOptionsParams = Type.Object({
  messageID: IdParam,
  options: Type.String({ description: 'Comma-separated: meta, status (1–2 unique values)' }),
});

export const OutboundListQuery = Type.Object({
  from: Type.Optional(StringOrList),
  to: Type.Optional(Type.String({ description: 'Messages with this recipient (one msisdn)' })),
  status: Type.Optional(
    Type.String({
      description: `Messages with at least one recipient in this status: ${STATUSES.join(', ')}`,
    }),
  ),
  ref: Type.Optional(Type.String({ description: 'Empty selects messages without a reference' })),
  paused: Type.Optional(Type.String({ description: 'true or false' })),
  completed: Type.Optional(Type.String({ description: 'true or false' })),
  'messageID.min': Type.Optional(Type.String()),
  'messageID.max': Type.Optional(Type.String()),
  'created_at.min': Type.Optional(Type.String({ description: 'Default: 24 hours ago' })),
  'created_at.max': Type.Optional(Type.String()),
  limit: Type.Optional(Type.String({ description: 'Default 100, maximum 500' })),
  offset: Type.Optional(Type.String()),
  sort: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description:
        'Fields messageID, created_at, send_at, complete_at, from, ref; leading - for descending. Default -messageID',
    }),
  ),
});

export const OutboundList = Type.Object({ data: Type.Array(OutboundMessage), more_results: Type.Boolean() });

export const PatchMessageBody = Type.Object({
  paused: Type.Boolean({ description: 'false releases a paused message; true pauses one still pending' }),
});
