import { FINAL_STATUS_LIST } from '../../src/store/migrations/022_list_filters.js';
import type { BenchDatabase } from './database.js';
import type { Progress } from './progress.js';

/** Recipients in a final status: a scan of every recipient, so only to confirm the end. */
const FINALS_SQL = `select count(*) from recipients where status in (${FINAL_STATUS_LIST})`;

/**
 * The messages' own count of recipients gone final, kept in the transaction of each final
 * status: one row per message, so cheap to poll. A count over all recipients every 50–100 ms
 * took an eighth of PostgreSQL's time in the engine bench and a third of a core in the cluster
 * bench, from the same two cores the gateway is measured on.
 */
const SETTLED_SQL = 'select coalesce(sum(num_recipients - open_recipients), 0) from messages';

/**
 * Waits until `total` recipients are final: polls the messages' counters every `pollMs`, and
 * confirms with a count of the recipients themselves when they say so (and every few seconds
 * anyway, so a counter that went wrong cannot keep the bench waiting forever). `check` runs at
 * each poll and may throw to stop waiting (a node died).
 */
export async function waitForFinals(
  db: BenchDatabase,
  total: number,
  bar: Progress,
  pollMs: number,
  check: () => void = () => {},
): Promise<void> {
  const confirmEvery = Math.ceil(3_000 / pollMs);
  for (let poll = 1; ; poll++) {
    const settled = await db.scalar(SETTLED_SQL);
    bar.update(settled);
    if ((settled >= total || poll % confirmEvery === 0) && (await db.scalar(FINALS_SQL)) >= total) return;
    check();
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
