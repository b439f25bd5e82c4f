/**
 * Imports an existing suppression list (decisions §17) from CSV, streaming: the file is read a
 * line at a time and written in batches of IMPORT_BATCH numbers, one transaction each, so a
 * list of millions takes memory for one batch and tells its progress as it goes. A number
 * already listed keeps its entry (reason and time); the new ones get reason `import`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { normaliseMsisdn } from '../domain/msisdn.js';
import type { Store } from '../store/port.js';

/**
 * Numbers per transaction: large enough that a commit (an fsync) is a small share of the time
 * (SQLite writes them in 2 INSERTs of 7,500 rows, PostgreSQL in one, an array per column).
 */
export const IMPORT_BATCH = 10_000;

export interface ImportProgress {
  /** Lines read, the header and blank lines included. */
  readonly lines: number;
  /** Numbers written (those already listed included). */
  readonly numbers: number;
  /** Lines whose first field is not an msisdn (a header, a typo); skipped. */
  readonly skipped: number;
}

/**
 * The first field of each line is the number (E.164, `+` optional, quotes allowed); other
 * fields (a reason, a date from another system) are ignored. `onProgress` is told after each
 * batch is committed.
 */
export async function importSuppressions(
  store: Pick<Store, 'suppressions'>,
  accountId: number,
  path: string,
  now: number,
  onProgress: (progress: ImportProgress) => void = () => {},
): Promise<ImportProgress> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let batch: string[] = [];
  let read = 0;
  let numbers = 0;
  let skipped = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await store.suppressions.addMany(accountId, batch, 'import', now);
    numbers += batch.length;
    batch = [];
    onProgress({ lines: read, numbers, skipped });
  };
  for await (const line of lines) {
    read++;
    const field = firstField(line);
    if (field === '') continue;
    const msisdn = normaliseMsisdn(field);
    if (msisdn === null) {
      skipped++;
      continue;
    }
    batch.push(msisdn);
    if (batch.length >= IMPORT_BATCH) await flush();
  }
  await flush();
  return { lines: read, numbers, skipped };
}

function firstField(line: string): string {
  const comma = line.indexOf(',');
  const semicolon = line.indexOf(';');
  const end = [comma, semicolon, line.indexOf('\t')].filter((i) => i >= 0);
  const field = (end.length > 0 ? line.slice(0, Math.min(...end)) : line).trim();
  return field.replace(/^"(.*)"$/, '$1').trim();
}
