import { Type } from '@sinclair/typebox';
import { DELIVERY_REPORT_TYPES } from '../../domain/delivery-report.js';
import { DateTimeOutput, Nullable } from './common.js';

/** The caller's own account as its API key sees it: settings and balance, never a secret. */
export const OwnAccount = Type.Object(
  {
    accountID: Type.Integer(),
    name: Type.String(),
    timezone: Type.String({ description: 'IANA time zone of date-times given without an offset' }),
    credits: Nullable(Type.Integer({ description: 'Credit balance; null = unlimited' })),
    any_sender: Type.Boolean({ description: 'Any sender may be used without validating it' }),
    senders: Type.Array(Type.String(), { description: 'Senders validated for the account' }),
    numbers: Type.Array(Type.Object({ msisdn: Type.String(), ref: Nullable(Type.String()) }), {
      description: 'Inbound numbers routed to the account',
    }),
    callback_url: Nullable(Type.String({ description: 'Default URL for delivery reports' })),
    inbound_url: Nullable(Type.String({ description: 'Default URL for inbound messages' })),
    delivery_report: Nullable(Type.Union(DELIVERY_REPORT_TYPES.map((t) => Type.Literal(t)))),
    created_at: DateTimeOutput,
  },
  { $id: 'OwnAccount' },
);
