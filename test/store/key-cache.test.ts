import { describe, expect, it } from 'vitest';
import type { Account, AccountStore } from '../../src/store/port.js';
import { KEY_CACHE_MS, withKeyCache } from '../../src/store/key-cache.js';

const account = (credits: number | null): Account => ({
  id: 1,
  name: 'a',
  timezone: 'UTC',
  credits,
  anySender: true,
  callbackUrl: null,
  inboundUrl: null,
  deliveryReport: null,
  webhookSecret: 's',
  prevWebhookSecret: null,
  prevSecretUntil: null,
  createdAt: 0,
  rateLimit: null,
  sendRate: null,
  optOutKeywords: true,
  optOutReply: null,
  smartEncoding: false,
  window: null,
});

/** An account store whose key lookup answers from `keys` and counts database reads. */
function fakeStore(keys: Map<string, Account>) {
  let reads = 0;
  let gate: Promise<void> | null = null;
  const store = {
    findByKeyHash: async (hash: string) => {
      reads += 1;
      const found = keys.get(hash) ?? null;
      if (gate) await gate;
      return found;
    },
    revokeKey: async () => {
      keys.clear();
      return true;
    },
    ...Object.fromEntries(
      [
        'create',
        'update',
        'addCredits',
        'createKey',
        'addSender',
        'removeSender',
        'addNumber',
        'removeNumber',
      ].map((name) => [name, async () => null]),
    ),
  } as unknown as AccountStore;
  return {
    store,
    reads: () => reads,
    hold: () => {
      let open!: () => void;
      gate = new Promise<void>((r) => (open = r));
      return () => {
        gate = null;
        open();
      };
    },
  };
}

describe('key → account cache', () => {
  it('reuses an account for KEY_CACHE_MS, then reads it again', async () => {
    let clock = 0;
    const fake = fakeStore(new Map([['h', account(5)]]));
    const cached = withKeyCache(fake.store, () => clock);
    expect((await cached.findByKeyHash('h'))?.credits).toBe(5);
    clock = KEY_CACHE_MS - 1;
    await cached.findByKeyHash('h');
    expect(fake.reads()).toBe(1);
    clock = KEY_CACHE_MS + 1;
    await cached.findByKeyHash('h');
    expect(fake.reads()).toBe(2);
  });

  it('forgets everything when a key is revoked through it, so the key stops working at once', async () => {
    const fake = fakeStore(new Map([['h', account(null)]]));
    const cached = withKeyCache(fake.store, () => 0);
    expect(await cached.findByKeyHash('h')).not.toBeNull();
    await cached.revokeKey(1, 1, 0);
    expect(await cached.findByKeyHash('h')).toBeNull();
  });

  it('never caches an unknown key, so a key created elsewhere works immediately', async () => {
    const keys = new Map<string, Account>();
    const fake = fakeStore(keys);
    const cached = withKeyCache(fake.store, () => 0);
    expect(await cached.findByKeyHash('new')).toBeNull();
    keys.set('new', account(1));
    expect(await cached.findByKeyHash('new')).not.toBeNull();
  });

  it('does not cache what a lookup read before a change that finished while it ran', async () => {
    const fake = fakeStore(new Map([['h', account(1)]]));
    const cached = withKeyCache(fake.store, () => 0);
    const release = fake.hold();
    const lookup = cached.findByKeyHash('h');
    await cached.addCredits(1, 10);
    release();
    expect((await lookup)?.credits).toBe(1);
    await cached.findByKeyHash('h');
    expect(fake.reads()).toBe(2);
  });
});
