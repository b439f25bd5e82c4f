import { Type } from '@sinclair/typebox';
import { BIND_MODES, CONCATENATION_MODES, DATA_CODINGS } from '../../app/connectors.js';
import { DateTime, Id, Nullable, StringEnum } from './common.js';

// The bodies declare JSON types and enumerations; the ranges are checked in
// src/app/connectors.ts, which the CLI shares, so both say the same thing about a bad value.

export const SESSION_STATES = ['idle', 'connecting', 'bound', 'stopping', 'stopped'] as const;

const settings = {
  host: Type.String({ description: 'Host name or IP address of the SMSC', examples: ['smsc.example.net'] }),
  port: Type.Integer({ description: '1 to 65535', examples: [2775] }),
  system_id: Type.String({ description: '1 to 15 Latin-1 characters' }),
  password: Type.String({ description: 'At most 8 Latin-1 characters; never shown again' }),
  system_type: Type.Optional(Type.String({ description: 'At most 12 Latin-1 characters; default empty' })),
  bind_mode: Type.Optional(
    StringEnum(BIND_MODES, {
      description: 'transceiver (default: one session both ways) or transmitter_receiver (two sessions)',
    }),
  ),
  tls: Type.Optional(Type.Boolean({ description: 'Connect over TLS; default false' })),
  window: Type.Optional(
    Type.Integer({ description: 'Submits awaiting a response at once, 1 to 1000; default 10' }),
  ),
  throughput: Type.Optional(
    Type.Integer({ description: 'submit_sm per second, 0 (default, unlimited) to 1000000' }),
  ),
  source_ton: Type.Optional(
    Nullable(Type.Integer(), {
      description: 'Sender TON 0 to 6; null (default) = 1 for an msisdn, 5 for an alphanumeric id',
    }),
  ),
  source_npi: Type.Optional(
    Nullable(Type.Integer(), {
      description: 'Sender NPI 0 to 18; null (default) = 1 for an msisdn, 0 for an alphanumeric id',
    }),
  ),
  dest_ton: Type.Optional(Type.Integer({ description: 'Destination TON 0 to 6; default 1 (international)' })),
  dest_npi: Type.Optional(Type.Integer({ description: 'Destination NPI 0 to 18; default 1 (ISDN)' })),
  default_data_coding: Type.Optional(
    Type.Unsafe<(typeof DATA_CODINGS)[number]>({
      type: 'integer',
      enum: [...DATA_CODINGS],
      description: 'For GSM-7 text: 0 (SMSC default alphabet, default) or 3 (Latin-1)',
    }),
  ),
  concatenation: Type.Optional(
    StringEnum(CONCATENATION_MODES, { description: 'Long messages: udh8 (default), udh16, sar or payload' }),
  ),
  request_receipts: Type.Optional(
    Type.Boolean({ description: 'Ask for delivery receipts when a message wants one; default true' }),
  ),
  enabled: Type.Optional(Type.Boolean({ description: 'A disabled connector is not bound; default true' })),
  max_binds: Type.Optional(
    Type.Integer({
      description: 'Binds to this SMSC across all nodes together, 1 to 100; default 1 (decisions §23)',
    }),
  ),
};

export const CreateConnectorBody = Type.Object(
  {
    name: Type.String({
      description: '1 to 40 of a-z A-Z 0-9 _ -; receipts and attempts are recorded under it',
      examples: ['telco'],
    }),
    ...settings,
  },
  { $id: 'CreateConnectorRequest', description: 'An SMPP connector: one bind to an SMSC' },
);

/** Renaming is not offered: receipts and attempts already recorded carry the name. */
export const PatchConnectorBody = Type.Partial(Type.Omit(CreateConnectorBody, ['name']), {
  $id: 'UpdateConnectorRequest',
  description: 'The settings to change; the others stay',
});

const Counts = (description: string) =>
  Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description });

export const ConnectorState = Type.Object(
  {
    bound: Type.Boolean({ description: 'Bound to the SMSC now' }),
    session: StringEnum(SESSION_STATES, { description: 'Where the SMPP session is' }),
    inFlight: Type.Integer({ minimum: 0, description: 'Part submits awaiting a response or their turn' }),
    throughput: Type.Number({ minimum: 0, description: 'submit_sm per second, recently' }),
    rateLimit: Type.Number({
      minimum: 0,
      description:
        'The submit rate in force (0 = unlimited); lower than configured while the SMSC slows us down',
    }),
    totals: Counts('Counts by kind: submits, responses, receipts, inbound …'),
    errors: Counts('Errors by kind: a command_status name, timeout …'),
    lastError: Type.Union(
      [
        Type.Object({
          at: DateTime(),
          kind: Type.String(),
          detail: Type.String({ description: 'For people' }),
        }),
        Type.Null(),
      ],
      { description: 'The most recent error; null when there was none' },
    ),
  },
  { $id: 'ConnectorState', description: 'Live state of a running connector on the node that answers' },
);

export const ConnectorView = Type.Object(
  {
    connectorID: Id('Identifier of the connector'),
    name: Type.String(),
    host: Type.String(),
    port: Type.Integer(),
    system_id: Type.String(),
    password_set: Type.Boolean({ description: 'The password itself is never returned' }),
    system_type: Type.String(),
    bind_mode: StringEnum(BIND_MODES),
    tls: Type.Boolean(),
    window: Type.Integer(),
    throughput: Type.Integer(),
    source_ton: Nullable(Type.Integer()),
    source_npi: Nullable(Type.Integer()),
    dest_ton: Type.Integer(),
    dest_npi: Type.Integer(),
    default_data_coding: Type.Integer(),
    concatenation: StringEnum(CONCATENATION_MODES),
    request_receipts: Type.Boolean(),
    enabled: Type.Boolean(),
    max_binds: Type.Integer({ description: 'Binds to this SMSC across all nodes together' }),
    created_at: DateTime(),
    updated_at: DateTime(),
    state: Type.Union([ConnectorState, Type.Null()], {
      description: 'Live state on this node; null when it is not running here',
    }),
  },
  { $id: 'Connector', description: 'An SMPP connector (never its password)' },
);

export const ConnectorList = Type.Object(
  { connectors: Type.Array(ConnectorView) },
  { $id: 'ConnectorList', description: 'Every SMPP connector' },
);
export const ConnectorParams = Type.Object({
  name: Type.String({ description: 'Name of the connector' }),
});
export const RemovedConnector = Type.Object(
  { name: Type.String(), removed: Type.Literal(true) },
  { $id: 'RemovedConnector', description: 'The connector and its routes are gone' },
);

export const CreateRouteBody = Type.Object(
  {
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
  },
  { $id: 'CreateRouteRequest', description: 'Destinations starting with prefix go to connector' },
);

export const RouteView = Type.Object(
  {
    routeID: Id('Identifier of the route'),
    prefix: Type.String(),
    connector: Type.String(),
    priority: Type.Integer(),
    created_at: DateTime(),
  },
  { $id: 'Route', description: 'A route of destinations to a connector' },
);

export const RouteList = Type.Object(
  { routes: Type.Array(RouteView, { description: 'In the order they are tried' }) },
  { $id: 'RouteList', description: 'Every route' },
);
export const RouteParams = Type.Object({ routeID: Id('Identifier of the route') });
export const RemovedRoute = Type.Object(
  { routeID: Id('Identifier of the route'), removed: Type.Literal(true) },
  { $id: 'RemovedRoute', description: 'The route is gone' },
);
