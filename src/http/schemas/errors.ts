import { Type } from '@sinclair/typebox';

/** The error bodies of interface.md "Errors", as documented response schemas. */
export const BadRequestBody = Type.Object(
  {
    status_code: Type.Literal(400),
    status_msg: Type.Literal('Bad Request'),
    error: Type.String({ description: 'Validation text' }),
    type: Type.String({ description: 'ARG_MISSING, ARG_CONFLICT, JSON_INVALID or VAL_ILLEGAL' }),
    arguement: Type.Union([Type.String(), Type.Null()], {
      description: 'Name of the offending argument (spelled so)',
    }),
  },
  { $id: 'BadRequest' },
);

export const ForbiddenBody = Type.Object(
  {
    status_code: Type.Literal(403),
    status_msg: Type.Literal('Forbidden'),
    error: Type.String(),
    type: Type.String({ description: 'VAL_ILLEGAL or CREDIT_INSUFFICIENT' }),
    arguement: Type.Union([Type.String(), Type.Null()]),
    bad_value: Type.Unknown({ description: 'The offending value as given' }),
    info: Type.String({ description: 'What to do about it' }),
  },
  { $id: 'Forbidden' },
);

export const UnauthorizedBody = Type.Object(
  { status_code: Type.Literal(401), status_msg: Type.Literal('Unauthorized') },
  { $id: 'Unauthorized' },
);

export const NotFoundBody = Type.Object(
  { status_code: Type.Literal(404), status_msg: Type.Literal('Not Found'), info: Type.String() },
  { $id: 'NotFound' },
);

export const MethodNotAllowedBody = Type.Object(
  {
    status_code: Type.Literal(405),
    status_msg: Type.Literal('Method Not Allowed'),
    Allow: Type.Array(Type.String()),
  },
  { $id: 'MethodNotAllowed' },
);

export const ConflictBody = Type.Object(
  { status_code: Type.Literal(409), status_msg: Type.Literal('Conflict'), info: Type.String() },
  { $id: 'Conflict' },
);

export const ServerErrorBody = Type.Object(
  { status_code: Type.Literal(500), status_msg: Type.Literal('Internal Server Error') },
  { $id: 'InternalServerError' },
);

/** Responses every authenticated public endpoint can give besides its own. */
export const commonErrors = {
  401: UnauthorizedBody,
  405: MethodNotAllowedBody,
  500: ServerErrorBody,
} as const;

export const TooManyRequestsBody = Type.Object(
  { status_code: Type.Literal(429), status_msg: Type.Literal('Too Many Requests') },
  {
    $id: 'TooManyRequests',
    description: "Over the account's rate_limit (counted per node); wait the Retry-After header's seconds",
  },
);

/** Responses every endpoint behind an API key can give: commonErrors and the account's rate limit. */
export const accountErrors = { ...commonErrors, 429: TooManyRequestsBody } as const;

export const IdempotencyInProgressBody = Type.Object(
  {
    status_code: Type.Literal(409),
    status_msg: Type.Literal('Conflict'),
    type: Type.Literal('IDEMPOTENCY_IN_PROGRESS'),
    arguement: Type.Literal('Idempotency-Key'),
  },
  { description: 'The first request with this Idempotency-Key is still running; retry shortly' },
);

export const IdempotencyMismatchBody = Type.Object(
  {
    status_code: Type.Literal(422),
    status_msg: Type.Literal('Unprocessable Entity'),
    type: Type.Literal('IDEMPOTENCY_MISMATCH'),
    arguement: Type.Literal('Idempotency-Key'),
  },
  { description: 'This Idempotency-Key was used with a different request body' },
);
