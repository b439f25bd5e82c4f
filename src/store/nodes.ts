/**
 * Nodes sharing the database (decisions §23). Work is held under a node's id — a submit in
 * flight (recipients.locked_by), a webhook attempt (webhook_deliveries.locked_by), an SMSC
 * bind (connector_binds) — for as long as the node's heartbeat is fresh. One lease per node
 * instead of one per row: nothing is renewed row by row while work runs, and a node that
 * stops beating loses all of it at once to whichever node notices first.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import { insertRows } from './insert-rows.js';
import { runShaped } from './shaped-sql.js';
import type { Database } from './schema.js';
import { applyChanges, type Changed, type TransitionSink } from './transitions.js';

export interface NodeInfo {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAt: number;
  readonly heartbeatAt: number;
}

export type JoinOutcome =
  | { readonly kind: 'joined' }
  /** A node with this id beats still (a second process configured with the same id). */
  | { readonly kind: 'taken'; readonly node: NodeInfo };

/**
 * Registers the node. An id whose row is stale (the same configured id, restarted after a
 * crash) is taken over here first, with everything it held.
 */
export async function joinIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  node: Omit<NodeInfo, 'heartbeatAt'>,
  now: number,
  ttlMs: number,
  onInterrupted: InterruptedPolicy,
  sink?: TransitionSink,
): Promise<JoinOutcome> {
  const lock = dialect.rowLocks ? ' for update' : '';
  const { rows } = await runShaped<NodeRow>(
    tx,
    `node-by-id|${lock}`,
    (p) => `select * from "nodes" where "id" = ${p.one()}${lock}`,
    [node.id],
  );
  const existing = rows[0];
  if (existing && Number(existing.heartbeat_at) > now - ttlMs)
    return { kind: 'taken', node: toNode(existing) };
  if (existing) await takeOverIn(tx, dialect, existing.id, now, onInterrupted, sink);
  await insertRows(
    tx,
    'nodes',
    ['id', 'host', 'pid', 'started_at', 'heartbeat_at'],
    [[node.id, node.host, node.pid, node.startedAt, now]],
  );
  return { kind: 'joined' };
}

/** Renews the node's lease; false when its row is gone (another node declared it dead). */
export async function beat(db: Kysely<Database>, id: string, now: number): Promise<boolean> {
  const result = await runShaped(
    db,
    'node-beat',
    (p) => `update "nodes" set "heartbeat_at" = ${p.one()} where "id" = ${p.one()}`,
    [now, id],
  );
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Nodes whose heartbeat is older than the lease: dead, or cut off from the database. */
export async function staleNodes(db: Kysely<Database>, now: number, ttlMs: number): Promise<string[]> {
  const { rows } = await runShaped<{ id: string }>(
    db,
    'stale-nodes',
    (p) => `select "id" from "nodes" where "heartbeat_at" < ${p.one()}`,
    [now - ttlMs],
  );
  return rows.map((r) => r.id);
}

export async function listNodes(db: Kysely<Database>): Promise<NodeInfo[]> {
  const { rows } = await runShaped<NodeRow>(
    db,
    'nodes',
    () => 'select * from "nodes" order by "started_at"',
    [],
  );
  return rows.map(toNode);
}

/** What happens to submits a dead node had in flight (SMSGW_ON_INTERRUPTED). */
export type InterruptedPolicy = 'resend' | 'unknown';

export interface TakeOver {
  /** Submits the node had in flight, now marked interrupted. */
  readonly interrupted: number;
  readonly deliveries: number;
  readonly binds: number;
  readonly changed: Changed[];
}

/**
 * Takes over a dead node's work, only if its heartbeat is still stale when locked (two nodes
 * noticing at once take it over once). Its submits in flight have an unknown outcome: each gets
 * an `interrupted` attempt and is sent again (at most those can reach a handset twice) or,
 * with `unknown`, ends as unknown. Its webhook deliveries are due again; its binds are freed.
 */
export async function takeOverStaleIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  id: string,
  now: number,
  ttlMs: number,
  onInterrupted: InterruptedPolicy,
  sink?: TransitionSink,
): Promise<TakeOver | null> {
  const lock = dialect.rowLocks ? ' for update skip locked' : '';
  const { rows } = await runShaped<{ id: string }>(
    tx,
    `stale-node|${lock}`,
    (p) => `select "id" from "nodes" where "id" = ${p.one()} and "heartbeat_at" < ${p.one()}${lock}`,
    [id, now - ttlMs],
  );
  if (rows.length === 0) return null;
  return takeOverIn(tx, dialect, id, now, onInterrupted, sink);
}

async function takeOverIn(
  tx: Kysely<Database>,
  dialect: Dialect,
  id: string,
  now: number,
  onInterrupted: InterruptedPolicy,
  sink?: TransitionSink,
): Promise<TakeOver> {
  const { rows: held } = await runShaped<{ id: number }>(
    tx,
    'held-sends',
    (p) => `select "id" from "recipients" where status = 'submitted' and "locked_by" = ${p.one()}`,
    [id],
  );
  await insertRows(
    tx,
    'submit_attempts',
    ['recipient_id', 'connector', 'worker', 'started_at', 'finished_at', 'outcome', 'detail'],
    held.map((r) => [
      r.id,
      '',
      id,
      now,
      now,
      'interrupted',
      'its node stopped before the outcome was recorded',
    ]),
  );
  let changed: Changed[] = [];
  if (onInterrupted === 'unknown') {
    changed = await applyChanges(
      tx,
      dialect,
      held.map((r) => ({ recipientId: r.id, to: 'unknown' })),
      now,
      sink,
      { holder: id, countAttempt: true },
    );
  } else {
    await runShaped(
      tx,
      'free-sends',
      (p) =>
        `update "recipients" set "locked_by" = null, "due_at" = ${p.one()}, "attempts" = "attempts" + 1 ` +
        `where status = 'submitted' and "locked_by" = ${p.one()}`,
      [now, id],
    );
  }
  const deliveries = await runShaped(
    tx,
    'free-deliveries',
    (p) =>
      `update "webhook_deliveries" set "locked_by" = null where state = 'pending' and "locked_by" = ${p.one()}`,
    [id],
  );
  const binds = await runShaped(
    tx,
    'free-binds',
    (p) => `delete from "connector_binds" where "node_id" = ${p.one()}`,
    [id],
  );
  await runShaped(
    tx,
    'free-jobs',
    (p) => `update "outbox" set "locked_by" = null where "locked_by" = ${p.one()}`,
    [id],
  );
  await freeSmppIn(tx, id);
  await runShaped(tx, 'drop-node', (p) => `delete from "nodes" where "id" = ${p.one()}`, [id]);
  return {
    interrupted: held.length,
    deliveries: Number(deliveries.numAffectedRows ?? 0),
    binds: Number(binds.numAffectedRows ?? 0),
    changed,
  };
}

/**
 * A node stopping cleanly gives everything back at once (nothing of it is in flight any
 * more), so no other node waits out its lease.
 */
export async function leaveIn(tx: Kysely<Database>, id: string, now: number): Promise<void> {
  await runShaped(
    tx,
    'leave-sends',
    (p) =>
      `update "recipients" set "locked_by" = null, "due_at" = ${p.one()} where status = 'submitted' and "locked_by" = ${p.one()}`,
    [now, id],
  );
  await runShaped(
    tx,
    'free-deliveries',
    (p) =>
      `update "webhook_deliveries" set "locked_by" = null where state = 'pending' and "locked_by" = ${p.one()}`,
    [id],
  );
  await runShaped(tx, 'free-binds', (p) => `delete from "connector_binds" where "node_id" = ${p.one()}`, [
    id,
  ]);
  await freeSmppIn(tx, id);
  await runShaped(tx, 'drop-node', (p) => `delete from "nodes" where "id" = ${p.one()}`, [id]);
}

/**
 * The SMPP server's share (decisions §21): the node's customer binds are gone with it, and the
 * deliver_sm it held go to a node with a bind of the account now rather than when the lease ends.
 */
async function freeSmppIn(tx: Kysely<Database>, id: string): Promise<void> {
  await runShaped(tx, 'free-smpp-binds', (p) => `delete from "smpp_binds" where "node_id" = ${p.one()}`, [
    id,
  ]);
  await runShaped(
    tx,
    'free-smpp-deliveries',
    (p) =>
      `update "smpp_deliveries" set "locked_by" = null, "locked_until" = null where state = 'pending' and "locked_by" = ${p.one()}`,
    [id],
  );
}

interface NodeRow {
  id: string;
  host: string;
  pid: number;
  started_at: number | string;
  heartbeat_at: number | string;
}

function toNode(r: NodeRow): NodeInfo {
  return {
    id: r.id,
    host: r.host,
    pid: r.pid,
    startedAt: Number(r.started_at),
    heartbeatAt: Number(r.heartbeat_at),
  };
}
