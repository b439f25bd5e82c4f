import type { Kysely } from 'kysely';
import { combinePartStates } from '../domain/receipt-status.js';
import type { CarrierReceipt } from '../carriers/port.js';
import type { Dialect } from './dialect.js';
import { chunk, INSERT_CHUNK, IN_CHUNK } from './chunks.js';
import { list, runShaped } from './shaped-sql.js';
import type { Database } from './schema.js';
import { applyChanges, type Change, type Changed, type TransitionSink } from './transitions.js';

/**
 * Records part receipts and moves recipients whose parts now decide their status. A receipt
 * for an id not recorded yet (it overtook its submit response) is kept as an orphan and
 * applied when the submit is recorded, so it is never lost.
 */
export async function applyReceiptsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  connector: string,
  receipts: readonly CarrierReceipt[],
  now: number,
  sink?: TransitionSink,
): Promise<Changed[]> {
  if (receipts.length === 0) return [];
  const parts: { carrier_id: string; recipient_id: number }[] = [];
  for (const part of chunk([...new Set(receipts.map((r) => r.carrierId))], IN_CHUNK)) {
    const { rows } = await runShaped<{ carrier_id: string; recipient_id: number }>(
      tx,
      'parts-of',
      (p) =>
        'select "carrier_id", "recipient_id" from "recipient_parts" ' +
        `where "connector" = ${p.one()} and "carrier_id" ${p.in()}`,
      [connector, list(part)],
    );
    for (const r of rows) parts.push(r);
  }
  const known = new Map(parts.map((p) => [p.carrier_id, p.recipient_id]));
  // The last receipt of an id wins, as one row per id in one statement (PostgreSQL refuses an
  // ON CONFLICT that would touch a row twice).
  const orphans = new Map(receipts.filter((r) => !known.has(r.carrierId)).map((r) => [r.carrierId, r]));
  const orphanRows = [...orphans.values()].map((r) => ({
    connector,
    carrier_id: r.carrierId,
    state: r.state,
    error: r.error ?? null,
    at: r.at,
  }));
  for (const rows of chunk(orphanRows, INSERT_CHUNK)) {
    await tx
      .insertInto('orphan_receipts')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['connector', 'carrier_id']).doUpdateSet((eb) => ({
          state: eb.ref('excluded.state'),
          error: eb.ref('excluded.error'),
          at: eb.ref('excluded.at'),
        })),
      )
      .execute();
  }
  // One statement per (state, time) pair rather than per receipt, in arrival order (an id's later
  // receipt applies after its earlier one; the guard keeps a final state). A single
  // UPDATE … FROM (VALUES …) with each part's time was tried: SQLite's planner scanned
  // recipient_parts for it, 12 ms per statement in the ingest bench.
  const groups = new Map<string, { state: string; at: number; ids: string[] }>();
  for (const r of receipts) {
    if (!known.has(r.carrierId)) continue;
    const key = `${r.state}:${r.at}`;
    const group = groups.get(key) ?? { state: r.state, at: r.at, ids: [] };
    group.ids.push(r.carrierId);
    groups.set(key, group);
  }
  for (const { state, at, ids: carrierIds } of groups.values()) {
    for (const part of chunk(carrierIds, IN_CHUNK)) {
      // A final part state is kept; only an open or in-transit part moves.
      await runShaped(
        tx,
        'part-state',
        (p) =>
          `update "recipient_parts" set "state" = ${p.one()}, "state_at" = ${p.one()} ` +
          `where "connector" = ${p.one()} and "carrier_id" ${p.in()} ` +
          `and ("state" is null or "state" = ${p.one()})`,
        [state, at, connector, list(part), 'enroute'],
      );
    }
  }
  const recipients = [...new Set(parts.map((p) => p.recipient_id))];
  if (recipients.length === 0) return [];
  const states: { recipient_id: number; state: string | null }[] = [];
  for (const part of chunk(recipients, IN_CHUNK)) {
    const { rows } = await runShaped<{ recipient_id: number; state: string | null }>(
      tx,
      'part-states',
      (p) =>
        'select "recipient_id", "state" from "recipient_parts" ' +
        `where "recipient_id" ${p.in()} order by "recipient_id", "part"`,
      [list(part)],
    );
    for (const r of rows) states.push(r);
  }
  const byRecipient = new Map<number, (string | null)[]>();
  for (const s of states)
    byRecipient.set(s.recipient_id, [...(byRecipient.get(s.recipient_id) ?? []), s.state]);
  const changes: Change[] = [];
  for (const [recipientId, partStates] of byRecipient) {
    const status = combinePartStates(partStates);
    if (status !== null) changes.push({ recipientId, to: status });
  }
  return applyChanges(tx, dialect, changes, now, sink);
}

/** Orphan receipts whose carrier ids are now recorded: applied and removed. */
export async function adoptOrphans(
  tx: Kysely<Database>,
  dialect: Dialect,
  connector: string,
  carrierIds: readonly string[],
  now: number,
  sink?: TransitionSink,
): Promise<Changed[]> {
  if (carrierIds.length === 0) return [];
  const found: CarrierReceipt[] = [];
  for (const part of chunk(carrierIds, IN_CHUNK)) {
    const { rows } = await runShaped<{ carrier_id: string; state: string; error: string | null; at: number }>(
      tx,
      'orphans-of',
      (p) =>
        'select "carrier_id", "state", "error", "at" from "orphan_receipts" ' +
        `where "connector" = ${p.one()} and "carrier_id" ${p.in()}`,
      [connector, list(part)],
    );
    for (const r of rows) {
      found.push({
        carrierId: r.carrier_id,
        state: r.state as CarrierReceipt['state'],
        at: r.at,
        ...(r.error ? { error: r.error } : {}),
      });
    }
  }
  if (found.length === 0) return [];
  await tx
    .deleteFrom('orphan_receipts')
    .where('connector', '=', connector)
    .where(
      'carrier_id',
      'in',
      found.map((r) => r.carrierId),
    )
    .execute();
  return applyReceiptsIn(tx, dialect, connector, found, now, sink);
}

/**
 * Orphans whose part has been recorded since. Under PostgreSQL a receipt and its submit record
 * can commit concurrently with neither seeing the other; this sweep (and any node may run it)
 * closes that gap.
 */
export async function adoptRecordedOrphansIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  connector: string,
  now: number,
  sink?: TransitionSink,
): Promise<Changed[]> {
  const rows = await tx
    .selectFrom('orphan_receipts as o')
    .innerJoin('recipient_parts as p', (join) =>
      join.onRef('p.connector', '=', 'o.connector').onRef('p.carrier_id', '=', 'o.carrier_id'),
    )
    .select('o.carrier_id')
    .where('o.connector', '=', connector)
    .limit(1000)
    .execute();
  return adoptOrphans(
    tx,
    dialect,
    connector,
    rows.map((r) => r.carrier_id),
    now,
    sink,
  );
}
