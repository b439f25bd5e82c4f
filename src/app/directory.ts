import { illegal, NotFoundError } from '../domain/errors.js';
import { DEFAULT_LIMIT, MAX_LIMIT, integerParam, type RawQuery } from './list-query.js';
import { normaliseMsisdn, normaliseSender } from '../domain/msisdn.js';
import { formatDateTime } from '../domain/dates.js';
import type { Account, NumberRecord, Store } from '../store/port.js';
import { checkCallbackUrl } from '../webhooks/address-guard.js';

/** Senders and inbound numbers of an account: the admin API's and the CLI's shared rules. */

export async function requireAccountById(store: Store, rawId: string | number): Promise<Account> {
  const id = typeof rawId === 'number' ? rawId : /^\d{1,16}$/.test(rawId) ? Number(rawId) : NaN;
  const account = Number.isSafeInteger(id) ? await store.accounts.get(id) : null;
  if (!account) throw new NotFoundError('No account with that accountID');
  return account;
}

export function normaliseSenderArgument(raw: string): string {
  const sender = normaliseSender(raw);
  if (sender === null) {
    throw illegal(
      'sender',
      raw,
      'sender must be an msisdn in E.164 format or an alphanumeric id of 1-11 characters',
    );
  }
  return sender;
}

export async function addSender(store: Store, account: Account, raw: string, now: number): Promise<string> {
  const sender = normaliseSenderArgument(raw);
  await store.accounts.addSender(account.id, sender, now);
  return sender;
}

export interface NumberInput {
  readonly msisdn: string;
  readonly ref?: string | null | undefined;
  readonly inboundUrl?: string | null | undefined;
}

/** Null when the number already routes to an account. */
export async function addNumber(store: Store, account: Account, input: NumberInput, now: number) {
  const msisdn = normaliseMsisdn(input.msisdn);
  if (msisdn === null)
    throw illegal('msisdn', input.msisdn, 'msisdn must be in E.164 format, e.g. +61491570156');
  if (input.inboundUrl && !checkCallbackUrl(input.inboundUrl).ok) {
    throw illegal('inbound_url', input.inboundUrl, 'inbound_url must be an http or https URL');
  }
  return store.accounts.addNumber({
    accountId: account.id,
    msisdn,
    ref: input.ref ?? null,
    inboundUrl: input.inboundUrl ?? null,
    createdAt: now,
  });
}

export function numberView(n: NumberRecord) {
  return { numberID: n.id, accountID: n.accountId, msisdn: n.msisdn, ref: n.ref, inbound_url: n.inboundUrl };
}

export function accountView(a: Account) {
  return {
    accountID: a.id,
    name: a.name,
    timezone: a.timezone,
    credits: a.credits,
    any_sender: a.anySender,
    callback_url: a.callbackUrl,
    inbound_url: a.inboundUrl,
    delivery_report: a.deliveryReport,
    webhook_secret: a.webhookSecret,
    rate_limit: a.rateLimit,
    send_rate: a.sendRate,
    ...complianceSettings(a),
    created_at: formatDateTime(a.createdAt),
  };
}

/** decisions §17, §19, §20: what the account does for the people it sends to. */
export function complianceSettings(a: Account) {
  return {
    opt_out_keywords: a.optOutKeywords,
    opt_out_reply: a.optOutReply,
    smart_encoding: a.smartEncoding,
    window: a.window,
  };
}

/** The account with its senders, numbers and keys (never the keys themselves). */
export async function accountDetails(store: Store, a: Account) {
  const [senders, numbers, keys] = await Promise.all([
    store.accounts.listSenders(a.id),
    store.accounts.listNumbers(a.id),
    store.accounts.listKeys(a.id),
  ]);
  return {
    ...accountView(a),
    senders,
    numbers: numbers.map(numberView),
    keys: keys.map((k) => ({
      keyID: k.id,
      prefix: k.prefix,
      created_at: formatDateTime(k.createdAt),
      revoked_at: k.revokedAt === null ? null : formatDateTime(k.revokedAt),
    })),
  };
}

/** The page of `smsgw accounts list` from its text options; the HTTP edge gets it typed from its schema. */
export function parsePage(query: RawQuery): { limit?: number; offset?: number } {
  const limit = integerParam(query, 'limit', 0, MAX_LIMIT);
  const offset = integerParam(query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  return { ...(limit !== undefined && { limit }), ...(offset !== undefined && { offset }) };
}

/** GET /admin/v1/accounts (decisions §16): by accountID, paged like the message lists. */
export async function listAccounts(
  store: Store,
  page: { readonly limit?: number; readonly offset?: number },
) {
  const { rows, more } = await store.accounts.list(page.limit ?? DEFAULT_LIMIT, page.offset ?? 0);
  return { accounts: rows.map(accountView), more_results: more };
}

/** An account as its own API key reads it (GET /v1/account): no secret, no key. */
export async function ownAccountView(store: Store, a: Account) {
  // The key's account may be a second old (the key cache); the balance is read fresh.
  const fresh = (await store.accounts.get(a.id)) ?? a;
  const [senders, numbers] = await Promise.all([
    store.accounts.listSenders(a.id),
    store.accounts.listNumbers(a.id),
  ]);
  return {
    accountID: fresh.id,
    name: fresh.name,
    timezone: fresh.timezone,
    credits: fresh.credits,
    any_sender: fresh.anySender,
    senders,
    numbers: numbers.map((n) => ({ msisdn: n.msisdn, ref: n.ref })),
    callback_url: fresh.callbackUrl,
    inbound_url: fresh.inboundUrl,
    delivery_report: fresh.deliveryReport,
    ...complianceSettings(fresh),
    created_at: formatDateTime(fresh.createdAt),
  };
}
