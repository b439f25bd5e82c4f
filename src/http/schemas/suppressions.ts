import { Type } from '@sinclair/typebox';
import { SUPPRESSION_REASONS } from '../../store/suppressions.js';
import { DateTime, Limit, Msisdn, Offset, StringEnum } from './common.js';

export const SuppressionView = Type.Object(
  {
    msisdn: Msisdn('The suppressed number'),
    reason: StringEnum(SUPPRESSION_REASONS, {
      description:
        'manual: added through the API or CLI; stop: the number texted a STOP keyword; import: a CSV import',
    }),
    created_at: DateTime('When it was added'),
  },
  { $id: 'Suppression', description: 'A number the account never sends to' },
);

export const SuppressionList = Type.Object(
  {
    suppressions: Type.Array(SuppressionView, { description: 'Oldest first' }),
    more_results: Type.Boolean({ description: 'True when entries exist beyond offset + limit' }),
  },
  { $id: 'SuppressionList', description: "A page of the account's suppression list" },
);

export const SuppressionListQuery = Type.Object({
  limit: Type.Optional(Limit(0)),
  offset: Type.Optional(Offset),
});

export const SuppressionParams = Type.Object({
  msisdn: Msisdn('The number, E.164 with or without +'),
});
