import { LRUCache } from 'lru-cache';

/**
 * A cache of at most `entries` values that forgets the least recently used first.
 *
 * Not a Map trimmed by deleting its first key: V8 leaves a deleted entry in place until the
 * table is rebuilt, and keys().next() walks past every one of them, so at 100,000 entries each
 * eviction cost up to 40 µs and the SMPP connector's recent ids made every submit pay it.
 * LRUCache evicts in constant time. It is bounded here by a size of one per entry rather than
 * by `max`, which allocates arrays for every entry up front (2.8 MB for 100,000, per connector
 * even when idle); this way memory grows with what is held.
 */
export function boundedCache<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  entries: number,
): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: entries, sizeCalculation: () => 1 });
}
