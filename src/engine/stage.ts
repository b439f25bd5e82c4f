/**
 * The one skeleton every kind of engine work follows (sends, message jobs, carrier events,
 * webhooks): its outcomes are recorded and its next work claimed in the transaction of a
 * turn (src/engine/loop.ts), then the claimed work is handled outside it.
 */
import type { TickOps } from '../store/engine-store.js';

export interface Stage<Outcome = unknown, Work = unknown> {
  readonly name: string;
  /** Outcomes waiting to be written, at most `limit` of them, taken for this turn. */
  takeOutcomes(limit: number): Outcome[];
  /** Inside the turn's transaction. */
  record(ops: TickOps, outcomes: Outcome[], now: number): Promise<void>;
  /** Whether this turn should claim (work may be due, and there is room for it). */
  wantsClaim(now: number): boolean;
  /** Inside the turn's transaction, after every stage has recorded. */
  claim(ops: TickOps, now: number): Promise<Work[]>;
  /** After the commit: acknowledge what was recorded, start what was claimed. */
  handle(work: Work[], recorded: Outcome[]): void;
  /** The turn rolled back: its outcomes wait for the next one. */
  restore(outcomes: Outcome[]): void;
}
