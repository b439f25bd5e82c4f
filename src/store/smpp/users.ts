import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { isUniqueViolation } from '../unique-violation.js';

/** An account's SMPP credentials (decisions §21); the password only as its hash. */
export interface SmppUser {
  readonly accountId: number;
  readonly systemId: string;
  readonly passwordHash: string;
  readonly maxBinds: number;
  readonly window: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type NewSmppUser = Omit<SmppUser, 'createdAt' | 'updatedAt'>;

export interface SmppUserStore {
  /** Creates or replaces the account's credentials; 'taken' when another account has the system_id. */
  set(user: NewSmppUser, now: number): Promise<{ kind: 'set'; user: SmppUser } | { kind: 'taken' }>;
  /** False when the account had none. */
  remove(accountId: number): Promise<boolean>;
  get(accountId: number): Promise<SmppUser | null>;
  findBySystemId(systemId: string): Promise<SmppUser | null>;
}

type Row = Database['smpp_users'];

function toUser(r: Row): SmppUser {
  return {
    accountId: Number(r.account_id),
    systemId: r.system_id,
    passwordHash: r.password_hash,
    maxBinds: Number(r.max_binds),
    window: Number(r.window),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export function smppUserStore(db: Kysely<Database>): SmppUserStore {
  const get = async (accountId: number) => {
    const row = await db
      .selectFrom('smpp_users')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? toUser(row) : null;
  };
  return {
    async set(user, now) {
      try {
        await db
          .insertInto('smpp_users')
          .values({
            account_id: user.accountId,
            system_id: user.systemId,
            password_hash: user.passwordHash,
            max_binds: user.maxBinds,
            window: user.window,
            created_at: now,
            updated_at: now,
          })
          .onConflict((oc) =>
            oc.column('account_id').doUpdateSet({
              system_id: user.systemId,
              password_hash: user.passwordHash,
              max_binds: user.maxBinds,
              window: user.window,
              updated_at: now,
            }),
          )
          .execute();
      } catch (error) {
        if (isUniqueViolation(error)) return { kind: 'taken' };
        throw error;
      }
      return { kind: 'set', user: (await get(user.accountId))! };
    },
    async remove(accountId) {
      const r = await db.deleteFrom('smpp_users').where('account_id', '=', accountId).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    get,
    async findBySystemId(systemId) {
      const row = await db
        .selectFrom('smpp_users')
        .selectAll()
        .where('system_id', '=', systemId)
        .executeTakeFirst();
      return row ? toUser(row) : null;
    },
  };
}
