import type { Account, AccountStore } from './port.js';

/** How long a key's account is reused without asking the database again. */
export const KEY_CACHE_MS = 1000;
const MAX_ENTRIES = 10_000;

/**
 * Every API request starts with the key → account lookup; at thousands of POSTs a second it is
 * worth remembering for a moment. Any change made through this store (revoked key, new credits,
 * senders) empties the cache at once; a change made by another process (the CLI, another node)
 * is seen within KEY_CACHE_MS. Unknown keys are never cached, so a new key works immediately.
 */
export function withKeyCache(store: AccountStore, now: () => number = Date.now): AccountStore {
  const cache = new Map<string, { account: Account; until: number }>();
  // Bumped by every change, so a lookup that began before it never caches what it read.
  let generation = 0;
  const clearing =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } finally {
        generation += 1;
        cache.clear();
      }
    };
  return {
    ...store,
    create: clearing(store.create.bind(store)),
    update: clearing(store.update.bind(store)),
    addCredits: clearing(store.addCredits.bind(store)),
    createKey: clearing(store.createKey.bind(store)),
    revokeKey: clearing(store.revokeKey.bind(store)),
    addSender: clearing(store.addSender.bind(store)),
    removeSender: clearing(store.removeSender.bind(store)),
    addNumber: clearing(store.addNumber.bind(store)),
    removeNumber: clearing(store.removeNumber.bind(store)),
    async findByKeyHash(keyHash) {
      const hit = cache.get(keyHash);
      if (hit && hit.until > now()) return hit.account;
      const started = generation;
      const account = await store.findByKeyHash(keyHash);
      if (account && started === generation) {
        if (cache.size >= MAX_ENTRIES) cache.clear();
        cache.set(keyHash, { account, until: now() + KEY_CACHE_MS });
      }
      return account;
    },
  };
}
