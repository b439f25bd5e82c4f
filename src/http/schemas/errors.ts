import { Type } from '@sinclair/typebox';
import { ValidationType } from '../../domain/errors.js';
import { Nullable, StringEnum } from './common.js';

/**
 * The error bodies of interface.md "Errors" and decisions §4, §12–§14. Each is a named
 * component of the OpenAPI document and the schema its responses are serialized with.
 */

const Argument = Nullable(Type.String(), {
  description: 'Name of the offending argument (spelled so); null when no one argument is at fault',
});

export const BadRequestBody = Type.Object(
  {
    status_code: Type.Literal(400),
    status_msg: Type.Literal('Bad Request'),
    error: Type.String({ description: 'What is wrong, for a person' }),
    type: StringEnum(
      [
        ValidationType.ArgMissing,
        ValidationType.ArgConflict,
        ValidationType.JsonInvalid,
        ValidationType.ValIllegal,
      ],
      {
        description:
          'ARG_MISSING: a required argument is absent or null; ARG_CONFLICT: two arguments that exclude ' +
          'each other; JSON_INVALID: the body is not a JSON object; VAL_ILLEGAL: a malformed query parameter',
      },
    ),
    arguement: Argument,
  },
  { $id: 'BadRequest', description: 'The request is malformed' },
);

export const UnauthorizedBody = Type.Object(
  { status_code: Type.Literal(401), status_msg: Type.Literal('Unauthorized') },
  { $id: 'Unauthorized', description: 'The key or token is missing, unknown or revoked' },
);

export const ForbiddenBody = Type.Object(
  {
    status_code: Type.Literal(403),
    status_msg: Type.Literal('Forbidden'),
    error: Type.String({ description: 'The same text as info' }),
    type: StringEnum([ValidationType.ValIllegal, ValidationType.CreditInsufficient], {
      description:
        'VAL_ILLEGAL: an argument has a disallowed value, or the request cannot apply to the current state; ' +
        'CREDIT_INSUFFICIENT: the account has too little credit for parts × recipients',
    }),
    arguement: Argument,
    bad_value: Type.Unknown({ description: 'The offending value as given; null when there is none' }),
    info: Type.String({ description: 'What to do about it, for a person' }),
  },
  { $id: 'Forbidden', description: 'An argument has a value that is not allowed' },
);

export const NotFoundBody = Type.Object(
  {
    status_code: Type.Literal(404),
    status_msg: Type.Literal('Not Found'),
    info: Type.String({ description: 'What was not found' }),
  },
  { $id: 'NotFound', description: 'No such resource for this key, or no such path' },
);

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'] as const;

export const MethodNotAllowedBody = Type.Object(
  {
    status_code: Type.Literal(405),
    status_msg: Type.Literal('Method Not Allowed'),
    Allow: Type.Array(StringEnum(HTTP_METHODS), {
      description: 'The methods this path supports, as in the Allow header',
    }),
  },
  { $id: 'MethodNotAllowed', description: 'The path does not support this method' },
);

export const ConflictBody = Type.Object(
  {
    status_code: Type.Literal(409),
    status_msg: Type.Literal('Conflict'),
    info: Type.String({ description: 'What already exists' }),
  },
  { $id: 'Conflict', description: 'The name or number is already taken' },
);

export const IdempotencyInProgressBody = Type.Object(
  {
    status_code: Type.Literal(409),
    status_msg: Type.Literal('Conflict'),
    type: Type.Literal('IDEMPOTENCY_IN_PROGRESS'),
    arguement: Type.Literal('Idempotency-Key'),
  },
  {
    $id: 'IdempotencyInProgress',
    description: 'A request with the same Idempotency-Key is still running; retry later',
  },
);

export const PayloadTooLargeBody = Type.Object(
  { status_code: Type.Literal(413), status_msg: Type.Literal('Payload Too Large') },
  { $id: 'PayloadTooLarge', description: 'The body is larger than SMSGW_MAX_BODY_BYTES' },
);

export const IdempotencyMismatchBody = Type.Object(
  {
    status_code: Type.Literal(422),
    status_msg: Type.Literal('Unprocessable Entity'),
    type: Type.Literal('IDEMPOTENCY_MISMATCH'),
    arguement: Type.Literal('Idempotency-Key'),
  },
  {
    $id: 'IdempotencyMismatch',
    description: 'The Idempotency-Key was used before with a different body',
  },
);

export const TooManyRequestsBody = Type.Object(
  { status_code: Type.Literal(429), status_msg: Type.Literal('Too Many Requests') },
  {
    $id: 'TooManyRequests',
    description: "Over the account's rate_limit; retry after the Retry-After header's seconds",
  },
);

export const ServerErrorBody = Type.Object(
  { status_code: Type.Literal(500), status_msg: Type.Literal('Internal Server Error') },
  { $id: 'InternalServerError', description: 'An unexpected failure; nothing about it is disclosed' },
);

/** Responses every operation of the public API (`/v1`, API key) can give besides its own. */
export const publicErrors = {
  401: UnauthorizedBody,
  405: MethodNotAllowedBody,
  429: TooManyRequestsBody,
  500: ServerErrorBody,
} as const;

/** Responses every operation of the admin API (`/admin/v1`, admin token) can give besides its own. */
export const adminErrors = {
  401: UnauthorizedBody,
  405: MethodNotAllowedBody,
  500: ServerErrorBody,
} as const;

/** What an operation that reads a JSON body can answer about the body itself. */
export const bodyErrors = {
  400: BadRequestBody,
  403: ForbiddenBody,
  413: PayloadTooLargeBody,
} as const;
