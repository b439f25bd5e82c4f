import { Type } from '@sinclair/typebox';
import { DateTime, Id, Msisdn, Nullable, complianceFields } from './common.js';
import { DeliveryReportType } from './messages.js';

/** The caller's own account as its API key sees it: settings and balance, never a secret. */
export const OwnAccount = Type.Object(
  {
    accountID: Id('Identifier of the account'),
    name: Type.String(),
    timezone: Type.String({ description: 'IANA time zone of date-times given without an offset' }),
    credits: Nullable(Type.Integer(), { description: 'Credit balance; null = unlimited' }),
    any_sender: Type.Boolean({ description: 'Any sender may be used without validating it' }),
    senders: Type.Array(Type.String(), { description: 'Senders validated for the account' }),
    numbers: Type.Array(Type.Object({ msisdn: Msisdn('The inbound number'), ref: Nullable(Type.String()) }), {
      description: 'Inbound numbers routed to the account',
    }),
    callback_url: Nullable(Type.String(), { description: 'Default URL for delivery reports' }),
    inbound_url: Nullable(Type.String(), { description: 'Default URL for inbound messages' }),
    delivery_report: DeliveryReportType('Default delivery report type of its messages'),
    ...complianceFields,
    created_at: DateTime(),
  },
  { $id: 'OwnAccount', description: "The key's account: balance, senders, numbers and defaults" },
);
