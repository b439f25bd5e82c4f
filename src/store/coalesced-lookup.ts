/**
 * Membership lookups that arrive in the same turn of the event loop, asked of the database as
 * one per key. Under load many POSTs are parsed in one turn and each asks which of its numbers
 * its account suppresses: one statement each, outside the group commit that writes them
 * together. On PostgreSQL that was one round trip per POST, 80 % of the API's statement time
 * (ingest bench, single POSTs). Asked together, they cost a statement per account per turn;
 * each caller waits at most for the end of the current turn. On SQLite, where the statement
 * runs in the caller's thread, it still saves a read snapshot and a statement per POST; the
 * group commit the POST then joins waits for the turn's end anyway.
 */
type Lookup<K> = (key: K, values: readonly string[]) => Promise<Set<string>>;

interface Waiting {
  readonly values: Set<string>;
  readonly callers: { resolve: (found: Set<string>) => void; reject: (error: unknown) => void }[];
}

export function coalescedLookup<K>(lookup: Lookup<K>): Lookup<K> {
  // Lookups asked since the last flush; a flush is scheduled exactly while this is not empty.
  let waiting = new Map<K, Waiting>();

  const flush = () => {
    const batch = waiting;
    waiting = new Map();
    for (const [key, { values, callers }] of batch) {
      lookup(key, [...values]).then(
        (found) => {
          for (const caller of callers) caller.resolve(found);
        },
        (error: unknown) => {
          for (const caller of callers) caller.reject(error);
        },
      );
    }
  };

  return (key, values) =>
    new Promise<Set<string>>((resolve, reject) => {
      if (waiting.size === 0) setImmediate(flush);
      let entry = waiting.get(key);
      if (!entry) {
        entry = { values: new Set(), callers: [] };
        waiting.set(key, entry);
      }
      for (const v of values) entry.values.add(v);
      // Each caller gets only its own values back, not the batch's.
      entry.callers.push({
        resolve: (found) => resolve(new Set(values.filter((v) => found.has(v)))),
        reject,
      });
    });
}
