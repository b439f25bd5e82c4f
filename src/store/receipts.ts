import type { Kysely } from 'kysely';
import { combinePartStates } from '../domain/receipt-status.js';
import type { CarrierReceipt } from '../carriers/port.js';
import type { Dialect } from './dialect.js';
import { chunk, INSERT_CHUNK, IN_CHUNK } from './chunks.js';
import { list, rows as tableOf, runShaped } from './shaped-sql.js';
import type { Database } from './schema.js';
import { applyChanges, type Change, type Changed, type TransitionSink } from './transitions.js';

/** What a batch of receipts did. */
export interface AppliedReceipts {
  readonly changed: Changed[];
  /** Carrier ids no recorded part had (yet): kept as orphans. */
  readonly unmatched: ReadonlySet<string>;
}

/**
 * Records part receipts and moves recipients whose parts now decide their status. A receipt
 * for an id not recorded yet (it overtook its submit response) is kept as an orphan and
 * applied when the submit is recorded, so it is never lost.
 *
 * A constant number of statements however many receipts: the receipts of recipients of one
 * part take one UPDATE … RETURNING (their part alone decides); the rest (parts of longer
 * messages, parts written before migration 61, ids not recorded yet) take a read of every part
 * of their recipients, the new part states worked out here in arrival order, and one UPDATE of
 * the parts that changed. Then one move per resulting status.
 */
export async function applyReceiptsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  connector: string,
  receipts: readonly CarrierReceipt[],
  now: number,
  sink?: TransitionSink,
): Promise<AppliedReceipts> {
  if (receipts.length === 0) return { changed: [], unmatched: new Set() };
  const single = await applySinglePartsIn(tx, connector, receipts);
  const rest =
    single.decided.size === 0 ? receipts : receipts.filter((r) => !single.decided.has(r.carrierId));
  const matched = rest.length > 0 ? await matchPartsIn(tx, dialect, connector, rest) : null;
  return {
    changed: await applyChanges(tx, dialect, [...single.changes, ...(matched?.changes ?? [])], now, sink),
    unmatched: matched?.unmatched ?? new Set(),
  };
}

/**
 * The receipts whose part is its recipient's only one, in one statement: each id's receipts
 * folded in arrival order as its part would take them (an open or in-transit part takes each
 * until one is final), written where the part is still open or in transit, and the parts back
 * with their state. A part already final keeps its state (a repeated receipt changes nothing);
 * that is decided in the SET rather than the WHERE so that the planner never estimates how
 * many parts are open and drives the join from them (see matchPartsIn). The UPDATE takes the
 * row's lock on PostgreSQL, so of two nodes with the same receipt the second sees it final.
 * Parts of longer messages are not touched here: their recipient's other parts must be locked
 * first, in order, as matchPartsIn does.
 */
async function applySinglePartsIn(
  tx: Kysely<Database>,
  connector: string,
  receipts: readonly CarrierReceipt[],
): Promise<{ decided: Set<string>; changes: Change[] }> {
  const folded = new Map<string, { state: string; at: number }>();
  for (const r of receipts) {
    const f = folded.get(r.carrierId);
    if (f === undefined) folded.set(r.carrierId, { state: r.state, at: r.at });
    else if (f.state === 'enroute') {
      f.state = r.state;
      f.at = r.at;
    }
  }
  const decided = new Set<string>();
  const changes: Change[] = [];
  for (const rows of chunk([...folded], IN_CHUNK)) {
    const result = await runShaped<{ carrier_id: string; recipient_id: number; state: string | null }>(
      tx,
      'single-part-receipts',
      (p) => `with v (carrier_id, state, at) as (${p.rows(['text', 'text', 'bigint'])})
      update recipient_parts set
        state = case when recipient_parts.state is null or recipient_parts.state = 'enroute'
          then v.state else recipient_parts.state end,
        state_at = case when recipient_parts.state is null or recipient_parts.state = 'enroute'
          then v.at else recipient_parts.state_at end
      from v
      where recipient_parts.connector = ${p.one()} and recipient_parts.carrier_id = v.carrier_id
        and recipient_parts.parts = 1
      returning recipient_parts.carrier_id, recipient_parts.recipient_id, recipient_parts.state`,
      [tableOf(rows.map(([carrierId, f]) => [carrierId, f.state, f.at])), connector],
    );
    for (const r of result.rows) {
      decided.add(r.carrier_id);
      const status = combinePartStates([r.state]);
      if (status !== null) changes.push({ recipientId: Number(r.recipient_id), to: status });
    }
  }
  return { decided, changes };
}

/** The other receipts: every part of their recipients read (and locked), then written. */
async function matchPartsIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  connector: string,
  receipts: readonly CarrierReceipt[],
): Promise<{ changes: Change[]; unmatched: Set<string> }> {
  // Locked on PostgreSQL: a duplicate receipt on another node's bind waits for this one.
  const lock = dialect.rowLocks ? ' for update of "all"' : '';
  const parts = new Map<string, PartRow>();
  for (const ids of chunk([...new Set(receipts.map((r) => r.carrierId))], IN_CHUNK)) {
    const { rows } = await runShaped<PartRow>(
      tx,
      `parts-of-recipients|${lock}`,
      (p) =>
        'select "all"."connector", "all"."carrier_id", "all"."recipient_id", "all"."part", "all"."state" ' +
        'from "recipient_parts" as "hit" inner join "recipient_parts" as "all" ' +
        'on "all"."recipient_id" = "hit"."recipient_id" ' +
        `where "hit"."connector" = ${p.one()} and "hit"."carrier_id" ${p.in()}${lock}`,
      [connector, list(ids)],
    );
    for (const r of rows) parts.set(`${r.connector}\n${r.carrier_id}`, r);
  }
  const partOf = (carrierId: string) => parts.get(`${connector}\n${carrierId}`);
  // The last receipt of an id wins, as one row per id in one statement (PostgreSQL refuses an
  // ON CONFLICT that would touch a row twice).
  const orphans = new Map(receipts.filter((r) => !partOf(r.carrierId)).map((r) => [r.carrierId, r]));
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
  // In arrival order: an open or in-transit part takes the receipt's state; a final one keeps
  // its own, so a late or repeated receipt changes nothing.
  const moved = new Map<string, { state: string; at: number }>();
  for (const r of receipts) {
    const part = partOf(r.carrierId);
    if (!part || (part.state !== null && part.state !== 'enroute')) continue;
    part.state = r.state;
    moved.set(r.carrierId, { state: r.state, at: r.at });
  }
  // Only parts read above as open or in transit are in `moved`, and the read locked them (or
  // SQLite's writer lock holds), so the UPDATE needs no guard of its own. It had one, and the
  // planner, which estimated that few parts are open, drove the join from the parts: 400 parts
  // against the 400 receipts, the receipts unnested again for each (100–300 ms, not 5).
  for (const rows of chunk([...moved], IN_CHUNK)) {
    await runShaped(
      tx,
      'part-states-set',
      (p) => `with v (carrier_id, state, at) as (${p.rows(['text', 'text', 'bigint'])})
      update recipient_parts set state = v.state, state_at = v.at
      from v
      where recipient_parts.connector = ${p.one()} and recipient_parts.carrier_id = v.carrier_id`,
      [tableOf(rows.map(([carrierId, m]) => [carrierId, m.state, m.at])), connector],
    );
  }
  const byRecipient = new Map<number, PartRow[]>();
  for (const part of parts.values()) {
    const list = byRecipient.get(part.recipient_id) ?? [];
    list.push(part);
    byRecipient.set(part.recipient_id, list);
  }
  const changes: Change[] = [];
  for (const [recipientId, partRows] of byRecipient) {
    const status = combinePartStates(partRows.sort((a, b) => a.part - b.part).map((p) => p.state));
    if (status !== null) changes.push({ recipientId, to: status });
  }
  return { changes, unmatched: new Set(orphans.keys()) };
}

interface PartRow {
  connector: string;
  carrier_id: string;
  recipient_id: number;
  part: number;
  state: string | null;
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
  return (await applyReceiptsIn(tx, dialect, connector, found, now, sink)).changed;
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
