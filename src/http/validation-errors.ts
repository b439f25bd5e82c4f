import type { FastifySchemaValidationError } from 'fastify';
import { ValidationType, type ValidationDetail } from '../domain/errors.js';

/** What a person should do about a bad value, per argument of the public and admin APIs. */
const FIELD_HELP: Record<string, string> = {
  to: 'to must be a non-empty array of msisdns in E.164 format, within the recipient limit',
  from: 'from must be an msisdn in E.164 format or an alphanumeric sender id of 1-11 characters',
  body: 'body must be text of 1 to 2000 characters',
  send_at: dateHelp('send_at'),
  expires_at: dateHelp('expires_at'),
  ttl: 'ttl must be a whole number of seconds greater than 0',
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

/**
 * Maps the first schema violation of a JSON body to the error contract of decisions §4:
 * a missing or null required argument is 400 ARG_MISSING, a body that is not an object is
 * 400 JSON_INVALID, and any other disallowed value is 403 VAL_ILLEGAL with the value as given.
 */
export function describeBodyError(error: FastifySchemaValidationError, body: unknown): ValidationDetail {
  if (error.keyword === 'required') {
    const name = String((error.params as { missingProperty?: string }).missingProperty ?? '');
    return { httpStatus: 400, type: ValidationType.ArgMissing, argument: name, info: `${name} is required` };
  }
  const path = error.instancePath.split('/').slice(1);
  const field = path[0];
  if (field === undefined) {
    return {
      httpStatus: 400,
      type: ValidationType.JsonInvalid,
      argument: null,
      info: 'The request body must be a JSON object',
    };
  }
  const value = (body as Record<string, unknown>)[field];
  // Optional fields accept null, so a null that fails the schema belongs to a required one.
  if (value === null) {
    return {
      httpStatus: 400,
      type: ValidationType.ArgMissing,
      argument: field,
      info: `${field} is required`,
    };
  }
  const item = path.length > 1 && Array.isArray(value) ? value[Number(path[1])] : undefined;
  const badValue = error.keyword === 'maxItems' && Array.isArray(value) ? value.length : (item ?? value);
  return {
    httpStatus: 403,
    type: ValidationType.ValIllegal,
    argument: field,
    badValue,
    info: FIELD_HELP[field] ?? `${field} ${error.message ?? 'is invalid'}`,
  };
}
