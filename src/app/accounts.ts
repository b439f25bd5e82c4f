import type { Logger } from 'pino';
import { isUniqueViolation } from '../store/unique-violation.js';
import type { DeliveryReportType } from '../domain/delivery-report.js';
import { AlreadyExistsError, illegal } from '../domain/errors.js';
import { isValidTimeZone } from '../domain/dates.js';
import type { Account, AccountPatch, Store } from '../store/port.js';
import { generateWebhookSecret } from '../webhooks/sign.js';
import { checkCallbackUrl } from '../webhooks/address-guard.js';
import { generateApiKey, hashApiKey, keyPrefix } from './api-keys.js';
import type { DeliveryWindow } from '../domain/delivery-window.js';
import { checkWindow, type WindowInput } from './send-plan.js';

export interface AccountInput {
  readonly name: string;
  readonly timezone?: string | undefined;
  readonly credits?: number | null | undefined;
  readonly anySender?: boolean | undefined;
  readonly callbackUrl?: string | null | undefined;
  readonly inboundUrl?: string | null | undefined;
  readonly deliveryReport?: DeliveryReportType | null | undefined;
  /** API requests per second (per node); null = unlimited. */
  readonly rateLimit?: number | null | undefined;
  /** Recipients per second to carriers (all nodes); null = unlimited. */
  readonly sendRate?: number | null | undefined;
  /** decisions §17, §19, §20. */
  readonly optOutKeywords?: boolean | undefined;
  readonly optOutReply?: string | null | undefined;
  readonly smartEncoding?: boolean | undefined;
  readonly window?: WindowInput | null | undefined;
}

export interface IssuedKey {
  readonly keyId: number;
  /** The key itself: shown once, never stored. */
  readonly apiKey: string;
}

/** How long the previous webhook secret keeps signing after a rotation. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export async function createAccount(
  store: Store,
  input: AccountInput,
  now: number,
  apiKey: string = generateApiKey(),
): Promise<{ account: Account; key: IssuedKey }> {
  checkAccountSettings(input);
  const account = await store.accounts.create({
    name: input.name,
    timezone: input.timezone ?? 'UTC',
    credits: input.credits ?? null,
    anySender: input.anySender ?? false,
    callbackUrl: input.callbackUrl ?? null,
    inboundUrl: input.inboundUrl ?? null,
    deliveryReport: input.deliveryReport ?? null,
    webhookSecret: generateWebhookSecret(),
    createdAt: now,
    rateLimit: input.rateLimit ?? null,
    sendRate: input.sendRate ?? null,
    optOutKeywords: input.optOutKeywords ?? true,
    optOutReply: input.optOutReply ?? null,
    smartEncoding: input.smartEncoding ?? false,
    window: input.window ? windowSetting(input.window) : null,
  });
  if (!account) throw new AlreadyExistsError(`An account named ${input.name} exists`);
  const key = await issueKey(store, account.id, now, apiKey);
  return { account, key };
}

export async function issueKey(
  store: Store,
  accountId: number,
  now: number,
  apiKey = generateApiKey(),
): Promise<IssuedKey> {
  const record = await store.accounts.createKey(accountId, hashApiKey(apiKey), keyPrefix(apiKey), now);
  return { keyId: record.id, apiKey };
}

export interface AccountChanges extends Omit<AccountInput, 'name'> {
  readonly name?: string | undefined;
  readonly addCredits?: number | undefined;
  readonly rotateWebhookSecret?: boolean | undefined;
}

export async function updateAccount(
  store: Store,
  id: number,
  changes: AccountChanges,
  now: number,
): Promise<Account | null> {
  checkAccountSettings(changes);
  const patch: { -readonly [K in keyof AccountPatch]: AccountPatch[K] } = {};
  if (changes.name !== undefined) patch.name = changes.name;
  if (changes.timezone !== undefined) patch.timezone = changes.timezone;
  if (changes.credits !== undefined) patch.credits = changes.credits;
  if (changes.anySender !== undefined) patch.anySender = changes.anySender;
  if (changes.callbackUrl !== undefined) patch.callbackUrl = changes.callbackUrl;
  if (changes.inboundUrl !== undefined) patch.inboundUrl = changes.inboundUrl;
  if (changes.deliveryReport !== undefined) patch.deliveryReport = changes.deliveryReport;
  if (changes.rateLimit !== undefined) patch.rateLimit = changes.rateLimit;
  if (changes.sendRate !== undefined) patch.sendRate = changes.sendRate;
  if (changes.optOutKeywords !== undefined) patch.optOutKeywords = changes.optOutKeywords;
  if (changes.optOutReply !== undefined) patch.optOutReply = changes.optOutReply;
  if (changes.smartEncoding !== undefined) patch.smartEncoding = changes.smartEncoding;
  if (changes.window !== undefined) patch.window = changes.window && windowSetting(changes.window);
  if (changes.rotateWebhookSecret) {
    patch.rotateSecret = { secret: generateWebhookSecret(), prevSecretUntil: now + SECRET_ROTATION_GRACE_MS };
  }
  let account = await store.accounts.update(id, patch);
  if (account && changes.addCredits !== undefined && changes.addCredits !== 0) {
    if (account.credits === null)
      throw illegal('add_credits', changes.addCredits, 'The account has unlimited credit; set credits first');
    account = await store.accounts.addCredits(id, changes.addCredits);
  }
  return account;
}

/** Highest rate_limit and send_rate accepted: far above what one node can serve or send. */
export const MAX_RATE = 1_000_000;

/** The window setting as stored: only its three fields, checked as a body's window is. */
function windowSetting(window: WindowInput): DeliveryWindow {
  checkWindow(window, 'window');
  return { start: window.start, end: window.end, timezone: window.timezone };
}

/** Longest automatic answer to an opt-out keyword: the body limit of a POST. */
const MAX_REPLY = 2000;

function checkAccountSettings(input: Omit<AccountInput, 'name'>): void {
  if (input.window) checkWindow(input.window, 'window');
  if (
    input.optOutReply !== undefined &&
    input.optOutReply !== null &&
    (input.optOutReply.length === 0 || input.optOutReply.length > MAX_REPLY)
  ) {
    throw illegal(
      'opt_out_reply',
      input.optOutReply,
      `opt_out_reply must be 1 to ${MAX_REPLY} characters, or null for no answer`,
    );
  }
  for (const [name, rate] of [
    ['rate_limit', input.rateLimit],
    ['send_rate', input.sendRate],
  ] as const) {
    if (rate !== undefined && rate !== null && (!Number.isSafeInteger(rate) || rate < 1 || rate > MAX_RATE)) {
      throw illegal(
        name,
        rate,
        `${name} must be a whole number from 1 to ${MAX_RATE} per second, or null for unlimited`,
      );
    }
  }
  if (input.timezone !== undefined && !isValidTimeZone(input.timezone)) {
    throw illegal(
      'timezone',
      input.timezone,
      'timezone must be an IANA time zone name such as UTC or Europe/London',
    );
  }
  for (const [name, url] of [
    ['callback_url', input.callbackUrl],
    ['inbound_url', input.inboundUrl],
  ] as const) {
    if (url !== undefined && url !== null && !checkCallbackUrl(url).ok) {
      throw illegal(name, url, `${name} must be an http or https URL`);
    }
  }
  if (
    input.credits !== undefined &&
    input.credits !== null &&
    (!Number.isSafeInteger(input.credits) || input.credits < 0)
  ) {
    throw illegal(
      'credits',
      input.credits,
      'credits must be a whole number of at least 0, or null for unlimited',
    );
  }
}

export const BOOTSTRAP_ACCOUNT = 'default';

/**
 * The "works on first try" path (decisions §1): an empty store gets account `default` with any
 * sender and unlimited credit, keyed by SMSGW_BOOTSTRAP_KEY or a random key printed once.
 * When SMSGW_BOOTSTRAP_KEY is set on a store that already exists, the key is added to `default`
 * if it is not live yet, so a configured bootstrap key always works.
 */
export async function ensureBootstrapAccount(
  store: Store,
  bootstrapKey: string | null,
  now: number,
  logger: Logger,
): Promise<{ apiKey: string | null }> {
  // Several nodes may start at once on an empty store: the one that loses the race for the
  // account's name (refused as AlreadyExistsError) or for the key's hash (a unique violation)
  // finds it there on a second look. Each look settles one of the two, so a few suffice.
  for (let attempt = 1; ; attempt++) {
    try {
      return await ensureBootstrapOnce(store, bootstrapKey, now, logger);
    } catch (error) {
      const lostRace = error instanceof AlreadyExistsError || isUniqueViolation(error);
      if (attempt >= 5 || !lostRace) throw error;
    }
  }
}

async function ensureBootstrapOnce(
  store: Store,
  bootstrapKey: string | null,
  now: number,
  logger: Logger,
): Promise<{ apiKey: string | null }> {
  if ((await store.accounts.count()) === 0) {
    const { account, key } = await createAccount(
      store,
      { name: BOOTSTRAP_ACCOUNT, anySender: true, credits: null },
      now,
      bootstrapKey ?? generateApiKey(),
    );
    logger.info({ accountID: account.id }, 'created account "default" (any sender, unlimited credit)');
    return { apiKey: bootstrapKey === null ? key.apiKey : null };
  }
  if (bootstrapKey !== null && !(await store.accounts.findByKeyHash(hashApiKey(bootstrapKey)))) {
    const account = await store.accounts.getByName(BOOTSTRAP_ACCOUNT);
    if (account) {
      await issueKey(store, account.id, now, bootstrapKey);
      logger.info({ accountID: account.id }, 'added SMSGW_BOOTSTRAP_KEY as a key of account "default"');
    } else {
      logger.warn('SMSGW_BOOTSTRAP_KEY is set but the store has no account "default"; the key was not added');
    }
  }
  return { apiKey: null };
}
