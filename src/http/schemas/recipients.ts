import { Type } from '@sinclair/typebox';
import { DateTime, DateTimeOutput, Limit, Msisdn, Nullable, Offset } from './common.js';
import { MessageId, StatusName } from './messages.js';

export const RecipientListQuery = Type.Object({
  messageID: MessageId,
  status: Type.Optional(StatusName),
  limit: Type.Optional(Limit(1)),
  offset: Type.Optional(Offset),
});

const RecipientPart = Type.Object(
  {
    part: Type.Integer({ minimum: 1, description: '1 for the first part' }),
    connector: Type.String({ description: 'The connector that sent it' }),
    carrier_id: Type.String({ description: 'The id the SMSC gave the part' }),
    state: Nullable(Type.String(), {
      description: 'Receipt state (DELIVRD, UNDELIV …); null until the receipt arrives',
    }),
    state_at: DateTimeOutput('When the receipt arrived; null until then'),
  },
  { $id: 'RecipientPart', description: 'A part the SMSC accepted, with its receipt' },
);

const SubmitAttempt = Type.Object(
  {
    connector: Type.String({ description: 'The connector it was handed to' }),
    started_at: DateTime(),
    finished_at: DateTimeOutput('null while in flight'),
    outcome: Nullable(Type.String(), {
      description: 'accepted, retry, rejected, aborted or interrupted; null while in flight',
    }),
    detail: Nullable(Type.String(), { description: 'Why it was not accepted, as the carrier said' }),
  },
  { $id: 'SubmitAttempt', description: 'One attempt to hand the recipient to a carrier' },
);

export const RecipientDetail = Type.Object(
  {
    msisdn: Msisdn('The recipient'),
    status: StatusName,
    status_code: Type.Integer({ description: 'The status code of decisions §7, or a finer one' }),
    status_at: DateTime('When it entered its status'),
    submitted_at: DateTimeOutput('When it was queued for the carrier'),
    sent_at: DateTimeOutput('When the SMSC accepted every part'),
    final_at: DateTimeOutput('When it reached a final status'),
    parts: Type.Array(RecipientPart),
    attempts: Type.Array(SubmitAttempt),
  },
  { $id: 'Recipient', description: 'One recipient of a message with its parts and submit attempts' },
);

export const RecipientList = Type.Object(
  {
    data: Type.Array(RecipientDetail, { description: 'In the order the recipients were given' }),
    more_results: Type.Boolean({
      description: 'True exactly when more recipients lie beyond offset + limit',
    }),
  },
  { $id: 'RecipientList', description: "A page of one message's recipients" },
);
