import { Type } from '@sinclair/typebox';
import {
  DateTime,
  DateTimeOutput,
  Id,
  Limit,
  Msisdn,
  Nullable,
  NullableDeliveryWindow,
  Offset,
  complianceFields,
} from './common.js';
import { DeliveryReportType } from './messages.js';
import { MAX_RATE } from '../../app/accounts.js';

export const AccountId = Id('Identifier of the account');

const settings = {
  timezone: Type.Optional(
    Type.String({
      description: 'IANA time zone of date-times given without a zone; default UTC',
      examples: ['Europe/London'],
    }),
  ),
  credits: Type.Optional(
    Nullable(Type.Integer({ minimum: 0 }), { description: 'Credit balance; null = unlimited (the default)' }),
  ),
  any_sender: Type.Optional(
    Type.Boolean({ description: 'Send from any sender without validating it; default false' }),
  ),
  callback_url: Type.Optional(
    Nullable(Type.String(), { description: 'Default http(s) URL for delivery reports' }),
  ),
  inbound_url: Type.Optional(
    Nullable(Type.String(), { description: 'Default http(s) URL for inbound messages' }),
  ),
  delivery_report: Type.Optional(DeliveryReportType('Default delivery report type of its messages')),
  rate_limit: Type.Optional(
    Nullable(Type.Integer({ minimum: 1, maximum: MAX_RATE }), {
      description:
        'API requests per second for the account, counted by each node on its own; over it: 429. null = unlimited',
    }),
  ),
  send_rate: Type.Optional(
    Nullable(Type.Integer({ minimum: 1, maximum: MAX_RATE }), {
      description:
        'Recipients per second handed to carriers, across all nodes; the rest wait in submitted. null = unlimited',
    }),
  ),
  opt_out_keywords: Type.Optional(
    Type.Boolean({
      description: 'Inbound STOP/START keywords maintain the suppression list; default true',
    }),
  ),
  opt_out_reply: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 2000 }), {
      description: 'Answer sent from the receiving number to a keyword; null = none (the default)',
    }),
  ),
  smart_encoding: Type.Optional(
    Type.Boolean({ description: 'Default of the smart_encoding field of a send; default false' }),
  ),
  window: Type.Optional(
    NullableDeliveryWindow('Default delivery window of a send; null = any hour (the default)'),
  ),
};

export const CreateAccountBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Unique name', examples: ['shop'] }),
    ...settings,
  },
  { $id: 'CreateAccountRequest', description: 'A new account; unknown fields are ignored' },
);

export const PatchAccountBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Unique name' })),
    ...settings,
    add_credits: Type.Optional(
      Type.Integer({ description: 'Added to a limited balance (negative to deduct)' }),
    ),
    rotate_webhook_secret: Type.Optional(
      Type.Boolean({ description: 'New webhook secret; the old one keeps signing for 24 hours' }),
    ),
  },
  { $id: 'UpdateAccountRequest', description: 'The settings to change; the others stay' },
);

const accountFields = {
  accountID: AccountId,
  name: Type.String(),
  timezone: Type.String({ description: 'IANA time zone' }),
  credits: Nullable(Type.Integer(), { description: 'Credit balance; null = unlimited' }),
  any_sender: Type.Boolean({ description: 'Sends from any sender without validating it' }),
  callback_url: Nullable(Type.String(), { description: 'Default URL for delivery reports' }),
  inbound_url: Nullable(Type.String(), { description: 'Default URL for inbound messages' }),
  delivery_report: DeliveryReportType('Default delivery report type of its messages'),
  webhook_secret: Type.String({ description: 'Signs its webhooks (Standard Webhooks)' }),
  rate_limit: Nullable(Type.Integer(), {
    description: 'API requests per second on each node; null = unlimited',
  }),
  send_rate: Nullable(Type.Integer(), {
    description: 'Recipients per second handed to carriers; null = unlimited',
  }),
  ...complianceFields,
  created_at: DateTime(),
};

export const AccountView = Type.Object(
  {
    ...accountFields,
    senders: Type.Array(Type.String(), { description: 'Validated senders' }),
    numbers: Type.Array(
      Type.Object({
        numberID: Id('Identifier of the number'),
        msisdn: Msisdn('The inbound number'),
        ref: Nullable(Type.String()),
        inbound_url: Nullable(Type.String()),
      }),
      { description: 'Inbound numbers routed to it' },
    ),
    keys: Type.Array(
      Type.Object({
        keyID: Id('Identifier of the key'),
        prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
        created_at: DateTime(),
        revoked_at: DateTimeOutput('null while the key works'),
      }),
      { description: 'Its API keys (never the keys themselves)' },
    ),
  },
  { $id: 'Account', description: 'An account with its senders, numbers and keys' },
);

export const CreatedAccount = Type.Object(
  {
    ...accountFields,
    keyID: Id('Identifier of its first key'),
    api_key: Type.String({ description: 'Its first API key: shown once, store it now' }),
  },
  { $id: 'CreatedAccount', description: 'The account, with its first API key' },
);

export const AccountParams = Type.Object({ accountID: AccountId });
export const KeyParams = Type.Object({ accountID: AccountId, keyID: Id('Identifier of the key') });
export const SenderParams = Type.Object({
  accountID: AccountId,
  sender: Type.String({ description: 'The sender, as validated (an msisdn with or without +)' }),
});
export const NumberParams = Type.Object({
  accountID: AccountId,
  msisdn: Type.String({ description: 'The inbound number, with or without +' }),
});

export const CreatedKey = Type.Object(
  {
    keyID: Id('Identifier of the key'),
    api_key: Type.String({ description: 'Shown once: store it now' }),
    prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  },
  { $id: 'CreatedApiKey', description: 'A new API key' },
);

export const RevokedKey = Type.Object(
  { keyID: Id('Identifier of the key'), revoked: Type.Literal(true) },
  { $id: 'RevokedApiKey', description: 'The key no longer authenticates' },
);

export const SenderBody = Type.Object(
  {
    sender: Type.String({
      description: 'An msisdn, or an alphanumeric id of 1–11 of A–Z a–z 0–9 space',
      examples: ['Shop'],
    }),
  },
  { $id: 'AddSenderRequest', description: 'A sender to validate for the account' },
);

export const SenderAdded = Type.Object(
  {
    accountID: AccountId,
    sender: Type.String({ description: 'The sender as stored: an msisdn gets its +' }),
  },
  { $id: 'Sender', description: 'The account may send from this sender' },
);

export const SenderRemoved = Type.Object(
  { accountID: AccountId, sender: Type.String(), removed: Type.Literal(true) },
  { $id: 'RemovedSender', description: 'The account may no longer send from this sender' },
);

export const NumberBody = Type.Object(
  {
    msisdn: Msisdn('The inbound number'),
    ref: Type.Optional(
      Nullable(Type.String({ maxLength: 80 }), { description: 'Given as ref of its inbound messages' }),
    ),
    inbound_url: Type.Optional(
      Nullable(Type.String(), { description: 'Overrides the account inbound_url for this number' }),
    ),
  },
  { $id: 'AddNumberRequest', description: 'An inbound number to route to the account' },
);

export const NumberView = Type.Object(
  {
    numberID: Id('Identifier of the number'),
    accountID: AccountId,
    msisdn: Msisdn('The inbound number'),
    ref: Nullable(Type.String()),
    inbound_url: Nullable(Type.String()),
  },
  { $id: 'Number', description: 'An inbound number routed to an account' },
);

export const NumberRemoved = Type.Object(
  { accountID: AccountId, msisdn: Msisdn('The inbound number'), removed: Type.Literal(true) },
  { $id: 'RemovedNumber', description: 'The number no longer routes to the account' },
);

export const AccountListQuery = Type.Object({
  limit: Type.Optional(Limit(0)),
  offset: Type.Optional(Offset),
});

export const AccountSummary = Type.Object(accountFields, {
  $id: 'AccountSummary',
  description: 'An account without its senders, numbers and keys',
});

export const AccountList = Type.Object(
  {
    accounts: Type.Array(AccountSummary),
    more_results: Type.Boolean({ description: 'True exactly when more accounts lie beyond offset + limit' }),
  },
  { $id: 'AccountList', description: 'A page of accounts in accountID order' },
);
