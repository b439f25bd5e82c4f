/** Connection-level failures as the attempt log names them. Every one of them is retried. */
import { PRIVATE_ADDRESS_CODE } from '../address-guard.js';

const NO_RESPONSE_ERRORS: Readonly<Record<string, string>> = {
  ETIMEDOUT: 'timeout',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
};

/** The code of a socket or DNS error; it may sit on a cause. */
export function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

export function describeSocketError(error: unknown): string {
  const code = errorCode(error);
  if (code !== undefined) return NO_RESPONSE_ERRORS[code] ?? `connection failed (${code})`;
  const message = error instanceof Error ? error.message : String(error);
  return `connection failed: ${message.slice(0, 120)}`;
}

/** A socket error as an attempt's failure; the guard's refusal is told apart (it gives up). */
export function describeFailure(error: unknown): { error: string; privateRefused: boolean } {
  if (errorCode(error) === PRIVATE_ADDRESS_CODE)
    return { error: 'private address refused', privateRefused: true };
  return { error: describeSocketError(error), privateRefused: false };
}
