import { Type } from '@sinclair/typebox';
import { Msisdn, Nullable, StringOrList } from './common.js';

export const InboundMessage = Type.Object(
  {
    messageID: Type.Integer(),
    from: Type.String({ description: 'msisdn with +' }),
    to: Type.String({ description: 'msisdn with +' }),
    body: Type.String(),
    ref: Nullable(Type.String({ description: 'Reference of the number it was sent to' })),
    received_at: Type.String({
      description: 'Time of receipt: Unix seconds with 6 decimals, as a string',
      examples: ['1763726400.123000'],
    }),
  },
  { $id: 'InboundMessage' },
);

export const InboundList = Type.Object({ data: Type.Array(InboundMessage), more_results: Type.Boolean() });

export const InboundListQuery = Type.Object({
  from: Type.Optional(StringOrList),
  ref: Type.Optional(Type.String({ description: 'Empty selects messages to numbers without a reference' })),
  completed: Type.Optional(
    Type.String({ description: 'true or false: its webhook was accepted or given up on, or none was due' }),
  ),
  'messageID.min': Type.Optional(Type.String()),
  'messageID.max': Type.Optional(Type.String()),
  'created_at.min': Type.Optional(
    Type.String({ description: 'Received on or after; default: 24 hours ago' }),
  ),
  'created_at.max': Type.Optional(Type.String({ description: 'Received on or before' })),
  limit: Type.Optional(Type.String({ description: 'Default 100, maximum 500' })),
  offset: Type.Optional(Type.String()),
  sort: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description:
        'Fields messageID, received_at, from, to, ref; leading - for descending. Default -messageID',
    }),
  ),
});

export const SimulatedInboundBody = Type.Object({
  from: Msisdn,
  to: Msisdn,
  body: Type.String({ description: 'Message text' }),
});

export const SimulatedInboundCreated = Type.Object({
  messageID: Type.Integer(),
  accountID: Nullable(Type.Integer({ description: 'null when the number routes to no account' })),
  routed: Type.Boolean(),
});
