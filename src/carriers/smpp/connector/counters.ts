/** What an operator asks of a link: how much went through and what went wrong, by kind. */
export interface LastError {
  readonly at: number;
  readonly kind: string;
  readonly detail: string;
}

export class Counters {
  readonly totals: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  lastError: LastError | null = null;

  count(kind: string, n = 1): void {
    this.totals[kind] = (this.totals[kind] ?? 0) + n;
  }

  /** `kind` is a stable key (a command_status name, 'timeout' …); `detail` is for people. */
  error(kind: string, detail: string): void {
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
    this.lastError = { at: Date.now(), kind, detail };
  }
}
