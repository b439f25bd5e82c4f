import { Type } from '@sinclair/typebox';
import { DELIVERY_REPORT_TYPES } from '../../domain/delivery-report.js';
import { MAX_RATE } from '../../app/accounts.js';
import { Nullable } from './common.js';

const DeliveryReport = Nullable(Type.Union(DELIVERY_REPORT_TYPES.map((t) => Type.Literal(t))));

const settings = {
  timezone: Type.Optional(
    Type.String({ description: 'IANA time zone for date-times without an offset; default UTC' }),
  ),
  credits: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, description: 'Credit balance; null = unlimited' })),
  ),
  any_sender: Type.Optional(Type.Boolean({ description: 'Allow any sender without validating it' })),
  callback_url: Type.Optional(Nullable(Type.String({ description: 'Default URL for delivery reports' }))),
  inbound_url: Type.Optional(Nullable(Type.String({ description: 'Default URL for inbound messages' }))),
  delivery_report: Type.Optional(DeliveryReport),
  rate_limit: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RATE,
        description:
          'API requests per second for the account, counted by each node on its own; over it: 429. null = unlimited',
      }),
    ),
  ),
  send_rate: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RATE,
        description:
          'Recipients per second handed to carriers, across all nodes; the rest wait in submitted. null = unlimited',
      }),
    ),
  ),
};

export const CreateAccountBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  ...settings,
});

export const PatchAccountBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  ...settings,
  add_credits: Type.Optional(
    Type.Integer({ description: 'Added to a limited balance (negative to deduct)' }),
  ),
  rotate_webhook_secret: Type.Optional(
    Type.Boolean({ description: 'New webhook secret; the old one keeps signing for 24 hours' }),
  ),
});

const AccountViewFields = {
  accountID: Type.Integer(),
  name: Type.String(),
  timezone: Type.String(),
  credits: Nullable(Type.Integer()),
  any_sender: Type.Boolean(),
  callback_url: Nullable(Type.String()),
  inbound_url: Nullable(Type.String()),
  delivery_report: DeliveryReport,
  webhook_secret: Type.String(),
  rate_limit: Nullable(Type.Integer()),
  send_rate: Nullable(Type.Integer()),
  created_at: Type.String(),
};

export const AccountView = Type.Object({
  ...AccountViewFields,
  senders: Type.Optional(Type.Array(Type.String())),
  numbers: Type.Optional(
    Type.Array(
      Type.Object({
        numberID: Type.Integer(),
        msisdn: Type.String(),
        ref: Nullable(Type.String()),
        inbound_url: Nullable(Type.String()),
      }),
    ),
  ),
  keys: Type.Optional(
    Type.Array(
      Type.Object({
        keyID: Type.Integer(),
        prefix: Type.String(),
        created_at: Type.String(),
        revoked_at: Nullable(Type.String()),
      }),
    ),
  ),
});

export const CreatedAccount = Type.Object({
  ...AccountView.properties,
  keyID: Type.Integer(),
  api_key: Type.String({ description: 'Shown once; store it now' }),
});

export const AccountParams = Type.Object({ accountID: Type.String() });
export const KeyParams = Type.Object({ accountID: Type.String(), keyID: Type.String() });
export const SenderParams = Type.Object({ accountID: Type.String(), sender: Type.String() });
export const NumberParams = Type.Object({ accountID: Type.String(), msisdn: Type.String() });

export const CreatedKey = Type.Object({
  keyID: Type.Integer(),
  api_key: Type.String(),
  prefix: Type.String(),
});
export const SenderBody = Type.Object({
  sender: Type.String({ description: 'msisdn or alphanumeric id (1–11 of A–Z a–z 0–9 space)' }),
});
export const NumberBody = Type.Object({
  msisdn: Type.String(),
  ref: Type.Optional(Nullable(Type.String({ maxLength: 80 }))),
  inbound_url: Type.Optional(
    Nullable(Type.String({ description: 'Overrides the account inbound_url for this number' })),
  ),
});
export const NumberView = Type.Object({
  numberID: Type.Integer(),
  accountID: Type.Integer(),
  msisdn: Type.String(),
  ref: Nullable(Type.String()),
  inbound_url: Nullable(Type.String()),
});

export const AccountListQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: 'Default 100, maximum 500' })),
  offset: Type.Optional(Type.String()),
});

export const AccountList = Type.Object({
  accounts: Type.Array(Type.Object(AccountViewFields)),
  more_results: Type.Boolean(),
});
