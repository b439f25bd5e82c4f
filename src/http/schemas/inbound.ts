import { Type } from '@sinclair/typebox';
import { INBOUND_SORT_FIELDS } from '../../store/inbound.js';
import { DateTimeQuery, Id, Limit, Msisdn, Nullable, Offset } from './common.js';
import { sortParameter } from './messages.js';

export const InboundMessage = Type.Object(
  {
    messageID: Id('Identifier of the inbound message'),
    from: Msisdn('The number the message came from'),
    to: Msisdn('The number it was sent to'),
    body: Type.String(),
    ref: Nullable(Type.String(), { description: 'Reference of the number it was sent to' }),
    received_at: Type.String({
      pattern: '^\\d+\\.\\d{6}$',
      description: 'Time of receipt: Unix seconds with 6 decimals, as a string',
      examples: ['1763726400.123000'],
    }),
  },
  { $id: 'InboundMessage', description: 'An inbound message' },
);

export const InboundList = Type.Object(
  {
    data: Type.Array(InboundMessage),
    more_results: Type.Boolean({ description: 'True exactly when more messages lie beyond offset + limit' }),
  },
  { $id: 'InboundMessageList', description: 'A page of inbound messages' },
);

export const InboundListQuery = Type.Object(
  {
    from: Type.Optional(
      Type.Array(Type.String(), { description: 'Sender msisdns, comma-separated or repeated' }),
    ),
    ref: Type.Optional(
      Type.String({ description: 'Messages to a number with this ref; empty: numbers without one' }),
    ),
    completed: Type.Optional(
      Type.Boolean({
        description: 'Its webhook was accepted or given up on, or none was due (true), or not yet (false)',
      }),
    ),
    'messageID.min': Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    'messageID.max': Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    'created_at.min': Type.Optional(DateTimeQuery('Received at or after; default 24 hours ago')),
    'created_at.max': Type.Optional(DateTimeQuery('Received at or before')),
    limit: Type.Optional(Limit(0)),
    offset: Type.Optional(Offset),
    sort: Type.Optional(sortParameter(INBOUND_SORT_FIELDS)),
  },
  { description: 'Every filter is optional' },
);

export const SimulatedInboundBody = Type.Object(
  {
    from: Msisdn('The handset it comes from'),
    to: Msisdn('One of the numbers routed to an account'),
    body: Type.String({ description: 'Message text' }),
  },
  { $id: 'SimulatedInboundRequest', description: 'An inbound message as a handset would send it' },
);

export const SimulatedInboundCreated = Type.Object(
  {
    messageID: Id('Identifier of the inbound message'),
    accountID: Nullable(Type.Integer({ minimum: 1 }), {
      description: 'The account it was routed to; null when the number routes to no account',
    }),
    routed: Type.Boolean({ description: 'Whether the number routes to an account' }),
  },
  { $id: 'SimulatedInboundCreated', description: 'The inbound message was received' },
);
