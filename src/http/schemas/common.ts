import {
  Type,
  type SchemaOptions,
  type Static,
  type TBoolean,
  type TInteger,
  type TNumber,
  type TString,
} from '@sinclair/typebox';

/**
 * A scalar or null, spelled as OpenAPI 3.1 (JSON Schema 2020-12) does: `type: [T, "null"]`.
 * Not TypeBox's anyOf, which fast-json-stringify serializes by trying each branch in turn, a
 * measurable share of a 100-item list response.
 */
export function Nullable<T extends TString | TInteger | TNumber | TBoolean>(
  schema: T,
  options: SchemaOptions = {},
) {
  return Type.Unsafe<Static<T> | null>({ ...schema, ...options, type: [schema.type, 'null'] });
}

/**
 * One of a list of strings, as `{type: string, enum}`: TypeBox's union of literals would reach
 * the document as an anyOf of one-value enums, which client generators read less well.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

export function NullableStringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
) {
  return Type.Unsafe<T[number] | null>({ ...options, type: ['string', 'null'], enum: [...values, null] });
}

/** An E.164 number: `+` optional on input, always present on output (decisions §5). */
export const Msisdn = (description = 'E.164 msisdn; the leading + is optional on input') =>
  Type.String({ description, examples: ['+61491570156'] });

const DATE_TIME_FORMS =
  'Unix seconds (an integer, or a string of digits; negative before 1970), "YYYY-MM-DD hh:mm:ss" or ' +
  'ISO 8601 without a zone ("2030-01-02T12:04:05", both read in the account timezone), ISO 8601 with Z, ' +
  'or ISO 8601 with an offset such as -0300 or -03:00. Fractional seconds are accepted.';

/** The date-time input forms of interface.md and decisions §6, or null for "not given". */
export const DateTimeInput = (description: string) =>
  Type.Unsafe<string | number | null>({
    type: ['string', 'integer', 'null'],
    description: `${description}. ${DATE_TIME_FORMS}`,
    examples: ['2030-01-01 09:00:00', '2030-01-01T09:00:00Z', 1893488400],
  });

/** The same forms in a query string. */
export const DateTimeQuery = (description: string) =>
  Type.String({ description: `${description}. ${DATE_TIME_FORMS}`, examples: ['2026-11-21T00:00:00Z'] });

/** Output date-times (decisions §6); null where the moment has not come or does not apply. */
export const DateTimeOutput = (description?: string) =>
  Nullable(
    Type.String({
      format: 'date-time',
      description: description ?? 'RFC 3339 in UTC with milliseconds, e.g. 2026-11-21T15:30:00.123Z',
    }),
  );

export const DateTime = (description?: string) =>
  Type.String({
    format: 'date-time',
    description: description ?? 'RFC 3339 in UTC with milliseconds, e.g. 2026-11-21T15:30:00.123Z',
  });

/** A row id in a path or a response: a positive integer below 2^53. */
export const Id = (description: string) =>
  Type.Integer({ format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });

/** Paging of the list endpoints (decisions §11). */
export const Limit = (minimum: number) =>
  Type.Integer({ minimum, maximum: 500, default: 100, description: 'At most this many items; default 100' });
export const Offset = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  default: 0,
  description: 'Skip this many items',
});

/** A delivery window (decisions §20), as a body field and as the account setting. */
export const DeliveryWindowSchema = Type.Object(
  {
    start: Type.String({ description: 'Local time the window opens, HH:MM', examples: ['09:00'] }),
    end: Type.String({
      description: 'Local time it closes, HH:MM (not included); before start: the window spans midnight',
      examples: ['20:00'],
    }),
    timezone: Type.String({
      description:
        'IANA time zone of start and end, or "recipient" for the zone of each number\'s country (see the ' +
        'README for countries with several zones)',
      examples: ['recipient', 'Europe/Paris'],
    }),
  },
  {
    $id: 'DeliveryWindow',
    description: 'Recipients are handed to a carrier only while their local time is in [start, end)',
  },
);

export const NullableDeliveryWindow = (description: string) =>
  Type.Unsafe<Static<typeof DeliveryWindowSchema> | null>({
    description,
    anyOf: [DeliveryWindowSchema, { type: 'null' }],
  });

/** The account settings of decisions §17, §19, §20, as every account view shows them. */
export const complianceFields = {
  opt_out_keywords: Type.Boolean({
    description: 'Inbound STOP/START keywords add and remove their sender on the suppression list',
  }),
  opt_out_reply: Nullable(Type.String(), {
    description: 'Answer sent from the receiving number to a keyword; null = none',
  }),
  smart_encoding: Type.Boolean({ description: 'Default of the smart_encoding field of a send' }),
  window: NullableDeliveryWindow('Default delivery window of a send; null = any hour'),
};
