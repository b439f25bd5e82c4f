import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from './dialect.js';
import { JOB } from './job-kinds.js';
import type { Database } from './schema.js';

/**
 * Deleting what decisions §15 lets go, one small batch per call, each batch one short
 * transaction. Every batch takes the oldest rows first through an index that holds finished rows
 * only (migration 23), and skips anything still in use: a message with a recipient not final, and
 * anything with a webhook delivery still pending. On PostgreSQL rows another node's cleaner is
 * deleting are skipped (SKIP LOCKED) rather than waited for.
 */
export interface RetentionStore {
  /**
   * Outbound messages completed before `before`, with their recipients, recipient parts, submit
   * attempts, message jobs still queued, and webhook deliveries with their attempts. A batch holds up to `limit` messages and
   * about `maxRecipients` recipients (a bigger message goes alone). Returns the messages deleted.
   */
  deleteMessages(before: number, limit: number, maxRecipients: number): Promise<number>;
  /** Inbound messages received before `before` whose webhook is done, with their deliveries. */
  deleteInbound(before: number, limit: number): Promise<number>;
  /** Webhook deliveries (with their attempts) finished before `before`. */
  deleteDeliveries(before: number, limit: number): Promise<number>;
  /**
   * deliver_sm for SMPP customers (decisions §21) acknowledged before `before`, and those still
   * waiting for a bind since before it: they wait as long as the rest is kept, no longer.
   */
  deleteSmppDeliveries(before: number, limit: number): Promise<number>;
}

/** No delivery for it (of `kind`) is still pending: it never leaves an unfinished webhook behind. */
function noPendingWebhook(table: 'messages' | 'inbound_messages', kind: 'delivery_report' | 'inbound') {
  return sql<SqlBool>`not exists (select 1 from webhook_deliveries d
    where d.message_id = ${sql.ref(`${table}.id`)} and d.kind = ${kind} and d.completed_at is null)`;
}

export function retentionStore(db: Kysely<Database>, dialect: Dialect): RetentionStore {
  const deleteDeliveriesIn = async (tx: Kysely<Database>, ids: readonly number[]) => {
    if (ids.length === 0) return;
    await tx.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).execute();
    await tx.deleteFrom('webhook_deliveries').where('id', 'in', ids).execute();
  };
  const deliveriesOf = async (tx: Kysely<Database>, kind: string, messageIds: readonly number[]) =>
    (
      await tx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('message_id', 'in', messageIds)
        .where('kind', '=', kind)
        .execute()
    ).map((r) => r.id);

  return {
    deleteMessages: (before, limit, maxRecipients) =>
      db.transaction().execute(async (tx) => {
        let query = tx
          .selectFrom('messages')
          .select(['id', 'num_recipients'])
          .where('complete_at', '<', before)
          .where('open_recipients', '=', 0)
          // The counter says every recipient is final; the rows are asked too, since nothing
          // that may still change is ever deleted.
          .where(
            sql<SqlBool>`not exists (select 1 from recipients r where r.message_id = messages.id
              and r.status in ('pending', 'submitted', 'sent'))`,
          )
          .where(noPendingWebhook('messages', 'delivery_report'))
          .orderBy('complete_at')
          .limit(limit);
        if (dialect.rowLocks) query = query.forUpdate().skipLocked();
        const candidates = await query.execute();
        const ids: number[] = [];
        let recipients = 0;
        for (const m of candidates) {
          if (ids.length > 0 && recipients + m.num_recipients > maxRecipients) break;
          ids.push(m.id);
          recipients += m.num_recipients;
        }
        if (ids.length === 0) return 0;
        await deleteDeliveriesIn(tx, await deliveriesOf(tx, 'delivery_report', ids));
        // A message that completed before its expires_at still has its expire job queued (it
        // would find nothing to do); it goes with the message rather than run against a gap.
        await tx
          .deleteFrom('outbox')
          .where('subject_id', 'in', ids)
          .where('kind', 'in', [JOB.release, JOB.expire])
          .execute();
        const ofRecipients = (column: 'recipient_id') =>
          sql<SqlBool>`${sql.ref(column)} in (select r.id from recipients r where r.message_id in (${sql.join(ids)}))`;
        await tx.deleteFrom('submit_attempts').where(ofRecipients('recipient_id')).execute();
        await tx.deleteFrom('recipient_parts').where(ofRecipients('recipient_id')).execute();
        if (dialect.numbersApart) {
          // By the whole key, which recipient_numbers' primary key is: it has no other index.
          await sql`delete from recipient_numbers where (msisdn, message_id, recipient_id) in (
              select r.msisdn, r.message_id, r.id from recipients r where r.message_id in (${sql.join(ids)}))`.execute(
            tx,
          );
        }
        await tx.deleteFrom('recipients').where('message_id', 'in', ids).execute();
        await tx.deleteFrom('smpp_submits').where('message_id', 'in', ids).execute();
        await tx.deleteFrom('messages').where('id', 'in', ids).execute();
        return ids.length;
      }),

    deleteInbound: (before, limit) =>
      db.transaction().execute(async (tx) => {
        let query = tx
          .selectFrom('inbound_messages')
          .select('id')
          .where('received_at', '<', before)
          .where('completed_at', 'is not', null)
          .where(noPendingWebhook('inbound_messages', 'inbound'))
          .orderBy('received_at')
          .limit(limit);
        if (dialect.rowLocks) query = query.forUpdate().skipLocked();
        const ids = (await query.execute()).map((r) => r.id);
        if (ids.length === 0) return 0;
        await deleteDeliveriesIn(tx, await deliveriesOf(tx, 'inbound', ids));
        await tx.deleteFrom('inbound_messages').where('id', 'in', ids).execute();
        return ids.length;
      }),

    deleteDeliveries: (before, limit) =>
      db.transaction().execute(async (tx) => {
        let query = tx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('completed_at', '<', before)
          .where('state', '<>', 'pending')
          .orderBy('completed_at')
          .limit(limit);
        if (dialect.rowLocks) query = query.forUpdate().skipLocked();
        const ids = (await query.execute()).map((r) => r.id);
        await deleteDeliveriesIn(tx, ids);
        return ids.length;
      }),

    deleteSmppDeliveries: (before, limit) =>
      db.transaction().execute(async (tx) => {
        let query = tx
          .selectFrom('smpp_deliveries')
          .select('id')
          .where((eb) =>
            eb.or([
              eb.and([eb('state', '=', 'done'), eb('done_at', '<', before)]),
              eb.and([
                eb('state', '=', 'pending'),
                eb('created_at', '<', before),
                eb('locked_by', 'is', null),
              ]),
            ]),
          )
          .orderBy('id')
          .limit(limit);
        if (dialect.rowLocks) query = query.forUpdate().skipLocked();
        const ids = (await query.execute()).map((r) => r.id);
        if (ids.length > 0) await tx.deleteFrom('smpp_deliveries').where('id', 'in', ids).execute();
        return ids.length;
      }),
  };
}
