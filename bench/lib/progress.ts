import { count, seconds } from './stats.js';

export interface Progress {
  /** `done` is the running total; `total` may be revised when the work grows. */
  update(done: number, total?: number): void;
  finish(): void;
}

/**
 * "label: 120,000 / 1,000,000 rows  85,000 rows/s  ETA 10.4 s" on stderr: redrawn in place on a
 * terminal, a line every few seconds otherwise (so CI logs stay readable).
 */
export function progress(label: string, total: number, unit = 'rows'): Progress {
  const tty = process.stderr.isTTY === true;
  const every = tty ? 200 : 5_000;
  const started = performance.now();
  let last = 0;
  let done = 0;
  const line = () => {
    const elapsed = performance.now() - started;
    const rate = elapsed > 0 ? (done / elapsed) * 1000 : 0;
    const eta = rate > 0 ? ((total - done) / rate) * 1000 : 0;
    return `${label}: ${count(done)} / ${count(total)} ${unit}  ${count(rate)} ${unit}/s  ETA ${seconds(eta)}`;
  };
  const draw = (final: boolean) => {
    if (tty) process.stderr.write(`\r\x1b[2K${line()}${final ? '\n' : ''}`);
    else process.stderr.write(`${line()}\n`);
  };
  return {
    update(n, newTotal) {
      done = n;
      if (newTotal !== undefined) total = newTotal;
      const now = performance.now();
      if (now - last >= every) {
        last = now;
        draw(false);
      }
    },
    finish() {
      draw(true);
    },
  };
}
