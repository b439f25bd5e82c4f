import type { Kysely, Selectable, Updateable } from 'kysely';
import type { DeliveryReportType } from '../domain/delivery-report.js';
import type { DeliveryWindow } from '../domain/delivery-window.js';
import { AlreadyExistsError } from '../domain/errors.js';
import { isUniqueViolation } from './unique-violation.js';
import type { Account, AccountPatch, AccountStore, ApiKeyRecord, NewAccount, NumberRecord } from './port.js';
import type { AccountsTable, ApiKeysTable, Database, NumbersTable } from './schema.js';

export function accountStore(db: Kysely<Database>): AccountStore {
  const get = async (id: number) => {
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toAccount(row) : null;
  };

  const update = async (id: number, patch: AccountPatch): Promise<Account | null> => {
    const values: Updateable<AccountsTable> = {};
    if (patch.name !== undefined) values.name = patch.name;
    if (patch.timezone !== undefined) values.timezone = patch.timezone;
    if (patch.anySender !== undefined) values.any_sender = patch.anySender ? 1 : 0;
    if (patch.callbackUrl !== undefined) values.callback_url = patch.callbackUrl;
    if (patch.inboundUrl !== undefined) values.inbound_url = patch.inboundUrl;
    if (patch.deliveryReport !== undefined) values.delivery_report = patch.deliveryReport;
    if (patch.credits !== undefined) values.credits = patch.credits;
    if (patch.rateLimit !== undefined) values.rate_limit = patch.rateLimit;
    if (patch.sendRate !== undefined) values.send_rate = patch.sendRate;
    if (patch.optOutKeywords !== undefined) values.opt_out_keywords = patch.optOutKeywords ? 1 : 0;
    if (patch.optOutReply !== undefined) values.opt_out_reply = patch.optOutReply;
    if (patch.smartEncoding !== undefined) values.smart_encoding = patch.smartEncoding ? 1 : 0;
    if (patch.window !== undefined)
      values.window = patch.window === null ? null : JSON.stringify(patch.window);
    if (patch.rotateSecret) {
      return db.transaction().execute(async (tx) => {
        const current = await tx
          .selectFrom('accounts')
          .select('webhook_secret')
          .where('id', '=', id)
          .executeTakeFirst();
        if (!current) return null;
        const row = await tx
          .updateTable('accounts')
          .set({
            ...values,
            webhook_secret: patch.rotateSecret!.secret,
            prev_webhook_secret: current.webhook_secret,
            prev_secret_until: patch.rotateSecret!.prevSecretUntil,
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        return row ? toAccount(row) : null;
      });
    }
    if (Object.keys(values).length === 0) return get(id);
    const row = await db
      .updateTable('accounts')
      .set(values)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row ? toAccount(row) : null;
  };

  return {
    async create(account: NewAccount) {
      // A taken name is an answer (null), not an error: two creations at once both read it as free.
      const row = await db
        .insertInto('accounts')
        .values({
          name: account.name,
          timezone: account.timezone,
          credits: account.credits,
          any_sender: account.anySender ? 1 : 0,
          callback_url: account.callbackUrl,
          inbound_url: account.inboundUrl,
          delivery_report: account.deliveryReport,
          webhook_secret: account.webhookSecret,
          created_at: account.createdAt,
          rate_limit: account.rateLimit ?? null,
          send_rate: account.sendRate ?? null,
          opt_out_keywords: account.optOutKeywords === false ? 0 : 1,
          opt_out_reply: account.optOutReply ?? null,
          smart_encoding: account.smartEncoding ? 1 : 0,
          window: account.window ? JSON.stringify(account.window) : null,
        })
        .onConflict((oc) => oc.column('name').doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toAccount(row) : null;
    },

    get,

    async list(limit, offset) {
      const rows = await db
        .selectFrom('accounts')
        .selectAll()
        .orderBy('id')
        .limit(limit + 1)
        .offset(offset)
        .execute();
      return { rows: rows.slice(0, limit).map(toAccount), more: rows.length > limit };
    },

    async getByName(name) {
      const row = await db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
      return row ? toAccount(row) : null;
    },

    async count() {
      const row = await db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async update(id, patch) {
      try {
        return await update(id, patch);
      } catch (error) {
        if (patch.name !== undefined && isUniqueViolation(error)) {
          throw new AlreadyExistsError(`An account named ${patch.name} exists`);
        }
        throw error;
      }
    },

    async addCredits(id, amount) {
      const row = await db
        .updateTable('accounts')
        .set((eb) => ({ credits: eb('credits', '+', amount) }))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toAccount(row) : null;
    },

    async createKey(accountId, keyHash, prefix, now) {
      const row = await db
        .insertInto('api_keys')
        .values({ account_id: accountId, key_hash: keyHash, prefix, created_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toKey(row);
    },

    async listKeys(accountId) {
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
      return rows.map(toKey);
    },

    async revokeKey(accountId, keyId, now) {
      const result = await db
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('id', '=', keyId)
        .where('account_id', '=', accountId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async findByKeyHash(keyHash) {
      const row = await db
        .selectFrom('api_keys')
        .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
        .selectAll('accounts')
        .select('api_keys.key_hash')
        .where('api_keys.key_hash', '=', keyHash)
        .where('api_keys.revoked_at', 'is', null)
        .executeTakeFirst();
      return row ? toAccount(row) : null;
    },

    async addSender(accountId, sender, now) {
      await db
        .insertInto('senders')
        .values({ account_id: accountId, sender, created_at: now })
        .onConflict((oc) => oc.columns(['account_id', 'sender']).doNothing())
        .execute();
    },

    async removeSender(accountId, sender) {
      const result = await db
        .deleteFrom('senders')
        .where('account_id', '=', accountId)
        .where('sender', '=', sender)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async hasSender(accountId, sender) {
      const row = await db
        .selectFrom('senders')
        .select('sender')
        .where('account_id', '=', accountId)
        .where('sender', '=', sender)
        .executeTakeFirst();
      return row !== undefined;
    },

    async listSenders(accountId) {
      const rows = await db
        .selectFrom('senders')
        .select('sender')
        .where('account_id', '=', accountId)
        .orderBy('sender')
        .execute();
      return rows.map((r) => r.sender);
    },

    async addNumber(number) {
      const row = await db
        .insertInto('numbers')
        .values({
          account_id: number.accountId,
          msisdn: number.msisdn,
          ref: number.ref,
          inbound_url: number.inboundUrl,
          created_at: number.createdAt,
        })
        .onConflict((oc) => oc.column('msisdn').doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toNumber(row) : null;
    },

    async listNumbers(accountId) {
      const rows = await db
        .selectFrom('numbers')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
      return rows.map(toNumber);
    },

    async removeNumber(accountId, msisdn) {
      const result = await db
        .deleteFrom('numbers')
        .where('account_id', '=', accountId)
        .where('msisdn', '=', msisdn)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    credits: row.credits,
    anySender: row.any_sender === 1,
    callbackUrl: row.callback_url,
    inboundUrl: row.inbound_url,
    deliveryReport: row.delivery_report as DeliveryReportType | null,
    webhookSecret: row.webhook_secret,
    prevWebhookSecret: row.prev_webhook_secret,
    prevSecretUntil: row.prev_secret_until,
    createdAt: row.created_at,
    rateLimit: row.rate_limit,
    sendRate: row.send_rate,
    optOutKeywords: row.opt_out_keywords === 1,
    optOutReply: row.opt_out_reply,
    smartEncoding: row.smart_encoding === 1,
    window: row.window === null ? null : (JSON.parse(row.window) as DeliveryWindow),
  };
}

function toKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    prefix: row.prefix,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function toNumber(row: Selectable<NumbersTable>): NumberRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    msisdn: row.msisdn,
    ref: row.ref,
    inboundUrl: row.inbound_url,
    createdAt: row.created_at,
  };
}
