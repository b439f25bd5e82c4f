import type { FastifySchemaValidationError } from 'fastify';
import { ValidationType, type ValidationDetail } from '../domain/errors.js';

/** What a person should do about a bad value, per argument of the public API's POST body. */
const FIELD_HELP: Record<string, string> = {
  to: 'to must be a non-empty array of msisdns in E.164 format, within the recipient limit',
  from: 'from must be an msisdn in E.164 format or an alphanumeric sender id of 1-11 characters',
  body: 'body must be text of 1 to 2000 characters',
  send_at: dateHelp('send_at'),
  expires_at: dateHelp('expires_at'),
  ttl: 'ttl must be a whole number of seconds, 0 or more, as a JSON integer or a string of digits',
  num_parts_max: 'num_parts_max must be a whole number of at least 1',
  ref: 'ref must be text of at most 80 characters',
  callbackURL: 'callbackURL must be an http or https URL',
  delivery_report:
    'delivery_report must be one of summary, detailed, per_recipient_final, per_recipient, or null',
  paused: 'paused must be true or false',
};

function dateHelp(name: string): string {
  return `${name} must be Unix seconds, "YYYY-MM-DD hh:mm:ss", or ISO 8601 with Z or an offset such as -0300`;
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  string: 'text',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

/**
 * A sentence about one schema violation of the argument `name`, from the failing keyword and,
 * for a whole number with bounds, the range its schema (`property`) allows.
 */
export function describeViolation(
  name: string,
  error: FastifySchemaValidationError,
  property?: unknown,
): string {
  const range = integerRange(property);
  if (range !== null && ['type', 'minimum', 'maximum'].includes(error.keyword)) {
    return `${name} must be a whole number from ${range.minimum} to ${range.maximum}`;
  }
  const { params } = error;
  switch (error.keyword) {
    case 'type': {
      const types = String(params.type).split(',');
      return `${name} must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'enum':
      return `${name} must be one of ${Array.isArray(params.allowedValues) ? params.allowedValues.map(String).join(', ') : '…'}`;
    case 'minimum':
      return `${name} must be at least ${String(params.limit)}`;
    case 'maximum':
      return `${name} must be at most ${String(params.limit)}`;
    case 'minLength':
      return `${name} must be at least ${String(params.limit)} characters long`;
    case 'maxLength':
      return `${name} must be at most ${String(params.limit)} characters long`;
    case 'minItems':
      return `${name} must have at least ${String(params.limit)} items`;
    case 'maxItems':
      return `${name} must have at most ${String(params.limit)} items`;
    default:
      return `${name} ${error.message ?? 'is invalid'}`;
  }
}

function integerRange(schema: unknown): { minimum: number; maximum: number } | null {
  if (schema === null || typeof schema !== 'object') return null;
  const { type, minimum, maximum } = { type: undefined, minimum: undefined, maximum: undefined, ...schema };
  return type === 'integer' && typeof minimum === 'number' && typeof maximum === 'number'
    ? { minimum, maximum }
    : null;
}

/** The schema of the property `name` of an object schema (a route's body or query), if any. */
export function propertyOf(schema: unknown, name: string): unknown {
  if (schema === null || typeof schema !== 'object' || !('properties' in schema)) return undefined;
  const { properties } = schema;
  return properties !== null && typeof properties === 'object'
    ? Object.getOwnPropertyDescriptor(properties, name)?.value
    : undefined;
}

/**
 * Maps the first schema violation of a JSON body to the error contract of decisions §4:
 * a missing or null required argument is 400 ARG_MISSING, a body that is not an object is
 * 400 JSON_INVALID, and any other disallowed value is 403 VAL_ILLEGAL with the value as given.
 */
export function describeBodyError(
  error: FastifySchemaValidationError,
  body: unknown,
  schema?: unknown,
): ValidationDetail {
  if (error.keyword === 'required') {
    const name = String(error.params.missingProperty ?? '');
    return { httpStatus: 400, type: ValidationType.ArgMissing, argument: name, info: `${name} is required` };
  }
  const path = error.instancePath.split('/').slice(1);
  const field = path[0];
  if (field === undefined || body === null || typeof body !== 'object') {
    return {
      httpStatus: 400,
      type: ValidationType.JsonInvalid,
      argument: null,
      info: 'The request body must be a JSON object',
    };
  }
  const value: unknown = Object.getOwnPropertyDescriptor(body, field)?.value;
  // Optional fields accept null, so a null that fails the schema belongs to a required one.
  if (value === null) {
    return {
      httpStatus: 400,
      type: ValidationType.ArgMissing,
      argument: field,
      info: `${field} is required`,
    };
  }
  const item: unknown = path.length > 1 && Array.isArray(value) ? value[Number(path[1])] : undefined;
  const badValue = error.keyword === 'maxItems' && Array.isArray(value) ? value.length : (item ?? value);
  return {
    httpStatus: 403,
    type: ValidationType.ValIllegal,
    argument: field,
    badValue,
    info: FIELD_HELP[field] ?? describeViolation(field, error, propertyOf(schema, field)),
  };
}

/** A malformed query parameter (decisions §4: 400 VAL_ILLEGAL naming it). */
export function describeQueryError(
  error: FastifySchemaValidationError,
  query: unknown,
  schema?: unknown,
): { argument: string | null; info: string } {
  const name = error.instancePath.split('/')[1];
  if (name === undefined) return { argument: null, info: `The query string is malformed` };
  const raw: unknown =
    query !== null && typeof query === 'object'
      ? Object.getOwnPropertyDescriptor(query, name)?.value
      : undefined;
  if (error.keyword === 'type' && Array.isArray(raw))
    return { argument: name, info: `${name} may be given only once` };
  return { argument: name, info: describeViolation(name, error, propertyOf(schema, name)) };
}

/** A path segment no resource can have: the 404 of decisions §4, saying why. */
export function describeParamError(error: FastifySchemaValidationError): string {
  const name = error.instancePath.split('/')[1] ?? 'path';
  // messageID → "No message with that messageID", accountID → "No account with that accountID"…
  return error.keyword === 'enum'
    ? describeViolation(name, error)
    : `No ${name.replace(/ID$/, '') || name} with that ${name}`;
}
