import { Type } from '@sinclair/typebox';
import { DateTimeOutput, IdParam, Nullable } from './common.js';

// The bodies declare JSON types; the allowed values are checked in src/app/connectors.ts, which
// the CLI shares, so both say the same thing about a bad value.

const settings = {
  host: Type.String({ description: 'Host name or IP address of the SMSC' }),
  port: Type.Integer({ description: '1 to 65535', examples: [2775] }),
  system_id: Type.String({ description: '1 to 15 Latin-1 characters' }),
  password: Type.String({ description: 'At most 8 Latin-1 characters; never shown again' }),
  system_type: Type.Optional(Type.String({ description: 'At most 12 Latin-1 characters; default empty' })),
  bind_mode: Type.Optional(
    Type.String({
      description: 'transceiver (default: one session both ways) or transmitter_receiver (two sessions)',
    }),
  ),
  tls: Type.Optional(Type.Boolean({ description: 'Connect over TLS; default false' })),
  window: Type.Optional(
    Type.Integer({ description: 'Submits awaiting a response at once, 1 to 1000; default 10' }),
  ),
  throughput: Type.Optional(Type.Integer({ description: 'submit_sm per second; 0 (default) = unlimited' })),
  source_ton: Type.Optional(
    Nullable(
      Type.Integer({
        description: 'Sender TON 0 to 6; null (default) = 1 for an msisdn, 5 for an alphanumeric id',
      }),
    ),
  ),
  source_npi: Type.Optional(
    Nullable(
      Type.Integer({
        description: 'Sender NPI 0 to 18; null (default) = 1 for an msisdn, 0 for an alphanumeric id',
      }),
    ),
  ),
  dest_ton: Type.Optional(Type.Integer({ description: 'Destination TON 0 to 6; default 1 (international)' })),
  dest_npi: Type.Optional(Type.Integer({ description: 'Destination NPI 0 to 18; default 1 (ISDN)' })),
  default_data_coding: Type.Optional(
    Type.Integer({ description: 'For GSM-7 text: 0 (SMSC default alphabet, default) or 3 (Latin-1)' }),
  ),
  concatenation: Type.Optional(
    Type.String({ description: 'Long messages: udh8 (default), udh16, sar or payload' }),
  ),
  request_receipts: Type.Optional(
    Type.Boolean({ description: 'Ask for delivery receipts when a message wants one; default true' }),
  ),
  enabled: Type.Optional(Type.Boolean({ description: 'A disabled connector is not bound; default true' })),
};

export const CreateConnectorBody = Type.Object({
  name: Type.String({
    description: '1 to 40 of a-z A-Z 0-9 _ -; receipts and attempts are recorded under it',
  }),
  ...settings,
});

/** Renaming is not offered: receipts and attempts already recorded carry the name. */
export const PatchConnectorBody = Type.Partial(Type.Omit(CreateConnectorBody, ['name']));

export const ConnectorView = Type.Object({
  connectorID: Type.Integer(),
  name: Type.String(),
  host: Type.String(),
  port: Type.Integer(),
  system_id: Type.String(),
  password_set: Type.Boolean({ description: 'The password itself is never returned' }),
  system_type: Type.String(),
  bind_mode: Type.String(),
  tls: Type.Boolean(),
  window: Type.Integer(),
  throughput: Type.Integer(),
  source_ton: Nullable(Type.Integer()),
  source_npi: Nullable(Type.Integer()),
  dest_ton: Type.Integer(),
  dest_npi: Type.Integer(),
  default_data_coding: Type.Integer(),
  concatenation: Type.String(),
  request_receipts: Type.Boolean(),
  enabled: Type.Boolean(),
  created_at: DateTimeOutput,
  updated_at: DateTimeOutput,
  state: Type.Unknown({
    description:
      'Live state on this node (bound, in-flight, throughput, errors); null when it is not running here',
  }),
});

export const ConnectorList = Type.Object({ connectors: Type.Array(ConnectorView) });
export const ConnectorParams = Type.Object({ name: Type.String() });
export const RemovedConnector = Type.Object({ name: Type.String(), removed: Type.Boolean() });

export const CreateRouteBody = Type.Object({
  prefix: Type.String({
    description: '+ and up to 15 digits; + alone matches every destination',
    examples: ['+61'],
  }),
  connector: Type.String({ description: 'Name of the connector' }),
  priority: Type.Optional(
    Type.Integer({
      description: 'Lower goes first; among equal priorities the longer prefix wins. Default 0',
    }),
  ),
});

export const RouteView = Type.Object({
  routeID: Type.Integer(),
  prefix: Type.String(),
  connector: Type.String(),
  priority: Type.Integer(),
  created_at: DateTimeOutput,
});

export const RouteList = Type.Object({
  routes: Type.Array(RouteView, { description: 'In the order they are tried' }),
});
export const RouteParams = Type.Object({ routeID: IdParam });
export const RemovedRoute = Type.Object({ routeID: Type.Integer(), removed: Type.Boolean() });
