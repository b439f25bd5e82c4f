/**
 * Domain errors carry data, not HTTP. The one HTTP error handler (src/http/errors.ts)
 * maps them to the bodies of interface.md.
 */

/** Validation `type` values of interface.md and decisions §4. */
export const ValidationType = {
  ArgMissing: 'ARG_MISSING',
  ValIllegal: 'VAL_ILLEGAL',
  ArgConflict: 'ARG_CONFLICT',
  JsonInvalid: 'JSON_INVALID',
  CreditInsufficient: 'CREDIT_INSUFFICIENT',
} as const;
export type ValidationType = (typeof ValidationType)[keyof typeof ValidationType];

export interface ValidationDetail {
  /** 400 for missing/conflicting/malformed input, 403 for a disallowed value. */
  readonly httpStatus: 400 | 403;
  readonly type: ValidationType;
  /** Name of the offending argument (`arguement` on the wire), or null. */
  readonly argument: string | null;
  /** The offending value as given; only sent on 403 bodies. */
  readonly badValue?: unknown;
  /** A sentence a person can act on. */
  readonly info: string;
}

export class ValidationError extends Error {
  readonly detail: ValidationDetail;
  constructor(detail: ValidationDetail) {
    super(detail.info);
    this.name = 'ValidationError';
    this.detail = detail;
  }
}

/** Shorthand for the common 403 VAL_ILLEGAL case. */
export function illegal(argument: string, badValue: unknown, info: string): ValidationError {
  return new ValidationError({ httpStatus: 403, type: ValidationType.ValIllegal, argument, badValue, info });
}

/** Shorthand for 400 ARG_MISSING. */
export function missing(argument: string): ValidationError {
  return new ValidationError({
    httpStatus: 400,
    type: ValidationType.ArgMissing,
    argument,
    info: `${argument} is required`,
  });
}

export class NotFoundError extends Error {
  constructor(info: string) {
    super(info);
    this.name = 'NotFoundError';
  }
}

/** A query parameter of a list endpoint is malformed: 400 with the 400 body, type VAL_ILLEGAL. */
export class QueryError extends Error {
  readonly argument: string;
  constructor(argument: string, info: string) {
    super(info);
    this.name = 'QueryError';
    this.argument = argument;
  }
}

/** An operation that is valid in form but cannot apply to the current state (decisions §3). */
export class ConflictError extends Error {
  readonly argument: string | null;
  constructor(argument: string | null, info: string) {
    super(info);
    this.name = 'ConflictError';
    this.argument = argument;
  }
}

/** Something with that name or number exists already (an account name, a routed number): 409. */
export class AlreadyExistsError extends Error {
  constructor(info: string) {
    super(info);
    this.name = 'AlreadyExistsError';
  }
}

/** An Idempotency-Key that cannot be used for this request (decisions §14): 422 or 409. */
export class IdempotencyError extends Error {
  constructor(
    /** mismatch: used with another body (422); in_progress: its first request still runs (409). */
    readonly kind: 'mismatch' | 'in_progress',
  ) {
    super(
      kind === 'mismatch'
        ? 'The Idempotency-Key was used with a different request body'
        : 'A request with this Idempotency-Key is still running',
    );
    this.name = 'IdempotencyError';
  }
}
