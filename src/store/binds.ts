/**
 * Binds to an SMSC across the nodes of one database (decisions §23): a connector allows
 * `max_binds` of them, each a slot a node holds while it is bound. A node that dies loses its
 * slots with the rest of its work (src/store/nodes.ts), so another node can bind.
 */
import type { Kysely } from 'kysely';
import { runShaped } from './shaped-sql.js';
import type { Database } from './schema.js';

export interface BindSlots {
  /**
   * Holds a slot below `maxBinds` of `connector` for `node`, taking a free one if it has none;
   * false when every slot is held by other nodes. A slot at or above a lowered limit is given up.
   */
  acquire(connector: string, node: string, maxBinds: number, now: number): Promise<boolean>;
  release(connector: string, node: string): Promise<void>;
  /** Which node holds each slot of each connector. */
  holders(): Promise<{ connector: string; slot: number; node: string; since: number }[]>;
}

export function bindSlots(db: Kysely<Database>): BindSlots {
  return {
    acquire: (connector, node, maxBinds, now) =>
      db.transaction().execute(async (tx) => {
        const { rows } = await runShaped<{ slot: number }>(
          tx,
          'own-bind-slot',
          (p) =>
            `select "slot" from "connector_binds" where "connector" = ${p.one()} and "node_id" = ${p.one()}`,
          [connector, node],
        );
        if (rows.some((r) => r.slot < maxBinds)) return true;
        if (rows.length > 0) {
          await runShaped(
            tx,
            'drop-bind-slots',
            (p) => `delete from "connector_binds" where "connector" = ${p.one()} and "node_id" = ${p.one()}`,
            [connector, node],
          );
        }
        for (let slot = 0; slot < maxBinds; slot++) {
          // The primary key decides between two nodes taking the same slot at once.
          const taken = await runShaped(
            tx,
            'take-bind-slot',
            (p) =>
              `insert into "connector_binds" ("connector", "slot", "node_id", "since") ` +
              `values (${p.one()}, ${p.one()}, ${p.one()}, ${p.one()}) on conflict do nothing`,
            [connector, slot, node, now],
          );
          if (Number(taken.numAffectedRows ?? 0) > 0) return true;
        }
        return false;
      }),
    async release(connector, node) {
      await runShaped(
        db,
        'drop-bind-slots',
        (p) => `delete from "connector_binds" where "connector" = ${p.one()} and "node_id" = ${p.one()}`,
        [connector, node],
      );
    },
    async holders() {
      const rows = await db
        .selectFrom('connector_binds')
        .selectAll()
        .orderBy('connector')
        .orderBy('slot')
        .execute();
      return rows.map((r) => ({ connector: r.connector, slot: r.slot, node: r.node_id, since: r.since }));
    },
  };
}
