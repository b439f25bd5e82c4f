import type { Account, NewMessageInput, Store } from '../../src/store/port.js';

/** An account (unlimited unless `credits` is given) that may send from any sender, straight through the store. */
export async function createStoreAccount(
  store: Store,
  name: string,
  credits: number | null = null,
): Promise<Account> {
  const account = await store.accounts.create({
    name,
    timezone: 'UTC',
    credits,
    anySender: true,
    callbackUrl: null,
    inboundUrl: null,
    deliveryReport: null,
    webhookSecret: 's',
    createdAt: 0,
  });
  if (!account) throw new Error(`an account named ${name} exists`);
  return account;
}

/** A one-part message to `recipients`, due at once, as the store's createMany takes it. */
export function messageInput(
  accountId: number,
  recipients: readonly string[],
  options: { body?: string; paused?: boolean; sendAt?: number } = {},
): NewMessageInput {
  return {
    message: {
      accountId,
      sender: 'Acme',
      body: options.body ?? 'hi',
      ref: null,
      callbackUrl: null,
      deliveryReport: null,
      sendAt: options.sendAt ?? 0,
      expiresAt: null,
      paused: options.paused ?? false,
      createdAt: 0,
      numParts: 1,
      encoding: 'gsm7',
      numRecipients: recipients.length,
    },
    recipients,
    credits: 0,
  };
}

/** `count` distinct Australian mobile numbers from +614 and `from`. */
export function msisdns(count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => `+614${String(from + i).padStart(8, '0')}`);
}
