import { Type } from '@sinclair/typebox';
import { STATUSES } from '../../domain/status.js';
import { DateTimeOutput, Nullable } from './common.js';

export const RecipientListQuery = Type.Object({
  // Required, but checked by the handler so that its absence names the argument (ARG_MISSING).
  messageID: Type.Optional(
    Type.String({ description: 'Required: the outbound message whose recipients to list' }),
  ),
  status: Type.Optional(
    Type.String({ description: `Only recipients in this status: ${STATUSES.join(', ')}` }),
  ),
  limit: Type.Optional(Type.String({ description: 'Default 100, maximum 500' })),
  offset: Type.Optional(Type.String()),
});

const RecipientPart = Type.Object({
  part: Type.Integer({ description: '1 for the first part' }),
  connector: Type.String(),
  carrier_id: Type.String({ description: 'The id the SMSC gave the part' }),
  state: Nullable(Type.String({ description: 'Receipt state (DELIVRD, UNDELIV …); null until it arrives' })),
  state_at: DateTimeOutput,
});

const SubmitAttempt = Type.Object({
  connector: Type.String(),
  started_at: DateTimeOutput,
  finished_at: DateTimeOutput,
  outcome: Nullable(
    Type.String({ description: 'accepted, retry, rejected, aborted or interrupted; null while in flight' }),
  ),
  detail: Nullable(Type.String({ description: 'Why it was not accepted, as the carrier said' })),
});

export const RecipientDetail = Type.Object({
  msisdn: Type.String(),
  status: Type.String(),
  status_code: Type.Integer(),
  status_at: DateTimeOutput,
  submitted_at: DateTimeOutput,
  sent_at: DateTimeOutput,
  final_at: DateTimeOutput,
  parts: Type.Array(RecipientPart),
  attempts: Type.Array(SubmitAttempt),
});

export const RecipientList = Type.Object({
  data: Type.Array(RecipientDetail, { description: 'In the order the recipients were given' }),
  more_results: Type.Boolean(),
});
