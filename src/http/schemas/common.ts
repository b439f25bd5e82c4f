import { Type, type TSchema } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Msisdn = Type.String({
  description: 'E.164 msisdn; the leading + is optional on input',
  examples: ['+61491570156'],
});

/** The four date-time input forms of interface.md. */
export const DateTimeInput = Type.Union([Type.String(), Type.Integer({ minimum: 0 })], {
  description:
    'Unix seconds (integer), "YYYY-MM-DD hh:mm:ss" in the account timezone, ISO 8601 with Z, or ISO 8601 with an offset such as -0300',
});

export const DateTimeOutput = Nullable(
  Type.String({
    format: 'date-time',
    description: 'RFC 3339 UTC with milliseconds, e.g. 2026-11-21T15:30:00.123Z',
  }),
);

/** A query parameter given once or repeated. */
export const StringOrList = Type.Union([Type.String(), Type.Array(Type.String())]);

export const IdParam = Type.String({ description: 'Integer id' });
