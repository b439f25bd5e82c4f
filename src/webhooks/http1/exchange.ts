/** One request/response on the webhook client's connections, and how it can end. */

export type ExchangeAnswer =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly retryAfter: string | undefined;
      /** The first bytes of the body (at most the read cap). */
      readonly body: Buffer;
    }
  | {
      readonly kind: 'no_response';
      /** As the attempt log shows it: 'timeout', 'connection refused', … */
      readonly error: string;
      /** The host resolves (or connected) to a private address the guard refuses. */
      readonly privateRefused: boolean;
    };

export interface Exchange {
  /** The whole request, head and body, as it goes on the wire. */
  readonly request: string;
  /** performance.now() after which the attempt has taken too long. */
  readonly deadline: number;
  /** Sent again once on a fresh connection when a reused one turns out closed. */
  retriedOnFreshConnection: boolean;
  /** Settles the attempt; later calls are ignored. */
  answer(answer: ExchangeAnswer): void;
  readonly settled: boolean;
}

/** A class rather than an object literal with a getter and closures: one per webhook attempt. */
class PendingExchange implements Exchange {
  retriedOnFreshConnection = false;
  private done = false;

  constructor(
    readonly request: string,
    readonly deadline: number,
    private readonly onAnswer: (answer: ExchangeAnswer) => void,
  ) {}

  get settled(): boolean {
    return this.done;
  }

  answer(answer: ExchangeAnswer): void {
    if (this.done) return;
    this.done = true;
    this.onAnswer(answer);
  }
}

export function createExchange(
  request: string,
  deadline: number,
  onAnswer: (answer: ExchangeAnswer) => void,
): Exchange {
  return new PendingExchange(request, deadline, onAnswer);
}
