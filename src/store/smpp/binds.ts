import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { list, runShaped } from '../shaped-sql.js';

export type SmppBindMode = 'transmitter' | 'receiver' | 'transceiver';

export interface SmppBindRow {
  readonly id: string;
  readonly accountId: number;
  readonly nodeId: string;
  readonly mode: SmppBindMode;
  readonly since: number;
}

/**
 * Customer binds held by the nodes. A bind counts while its node's row exists: a dead node's
 * row goes at takeover (src/store/nodes.ts), and with it every bind it held, without a sweep.
 */
export interface SmppBindStore {
  /**
   * Records the bind unless the account already holds `maxBinds` binds across all nodes;
   * false when it does.
   */
  add(bind: SmppBindRow, maxBinds: number): Promise<boolean>;
  remove(id: string): Promise<void>;
  /** Every bind of a node (its server stopping). */
  removeNode(nodeId: string): Promise<void>;
}

export function smppBindStore(db: Kysely<Database>): SmppBindStore {
  return {
    async add(bind, maxBinds) {
      return db.transaction().execute(async (tx) => {
        // Binds of live nodes, and this node's own (its row may be a moment away at start-up).
        const { n } = await tx
          .selectFrom('smpp_binds')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', bind.accountId)
          .where((eb) =>
            eb.or([
              eb('node_id', '=', bind.nodeId),
              eb('node_id', 'in', eb.selectFrom('nodes').select('id')),
            ]),
          )
          .executeTakeFirstOrThrow();
        if (Number(n) >= maxBinds) return false;
        await tx
          .insertInto('smpp_binds')
          .values({
            id: bind.id,
            account_id: bind.accountId,
            node_id: bind.nodeId,
            mode: bind.mode,
            since: bind.since,
          })
          .execute();
        return true;
      });
    },
    async remove(id) {
      await db.deleteFrom('smpp_binds').where('id', '=', id).execute();
    },
    async removeNode(nodeId) {
      await db.deleteFrom('smpp_binds').where('node_id', '=', nodeId).execute();
    },
  };
}

/** Accounts among `accountIds` with a receiver or transceiver bind on a live node (the MO path). */
export async function accountsBoundForMoIn(
  tx: Kysely<Database>,
  accountIds: readonly number[],
): Promise<Set<number>> {
  if (accountIds.length === 0) return new Set();
  const { rows } = await runShaped<{ account_id: number | string }>(
    tx,
    'mo-bound-accounts',
    (p) =>
      `select distinct "b"."account_id" from "smpp_binds" as "b" ` +
      `inner join "nodes" as "n" on "n"."id" = "b"."node_id" ` +
      `where "b"."account_id" ${p.in()} and "b"."mode" != 'transmitter'`,
    [list(accountIds)],
  );
  return new Set(rows.map((r) => Number(r.account_id)));
}
