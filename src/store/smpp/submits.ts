import type { Kysely, Selectable } from 'kysely';
import { chunk, IN_CHUNK } from '../chunks.js';
import type { Database, MessagesTable, SmppSubmitsTable } from '../schema.js';
import { list, runShaped } from '../shaped-sql.js';

export interface SmppSubmit {
  readonly messageId: number;
  readonly accountId: number;
  readonly registeredDelivery: number;
  /** Ids the earlier parts of a long submit were answered with. */
  readonly partIds: readonly string[];
}

/** In the transaction that accepts the messages, so no receipt can come before its row. */
export async function recordSmppSubmitsIn(
  tx: Kysely<Database>,
  submits: readonly SmppSubmit[],
): Promise<void> {
  if (submits.length === 0) return;
  await tx
    .insertInto('smpp_submits')
    .values(
      submits.map((s) => ({
        message_id: s.messageId,
        account_id: s.accountId,
        registered_delivery: s.registeredDelivery,
        part_ids: s.partIds.length > 0 ? s.partIds.join(',') : null,
      })),
    )
    .execute();
}

/** What a receipt says about its message besides the recipient's change. */
export interface ReceiptSource {
  readonly messageId: number;
  readonly accountId: number;
  readonly registeredDelivery: number;
  readonly sender: string;
  readonly body: string;
  readonly createdAt: number;
  /** The ids a receipt goes out under: the earlier parts' and then the messageID. */
  readonly receiptIds: readonly string[];
}

type ReceiptSourceRow = SmppSubmitsTable & Pick<Selectable<MessagesTable>, 'sender' | 'body' | 'created_at'>;

/** The SMPP submits among `messageIds` that asked for receipts, with their messages. */
export async function receiptSourcesIn(
  tx: Kysely<Database>,
  messageIds: readonly number[],
): Promise<Map<number, ReceiptSource>> {
  const found = new Map<number, ReceiptSource>();
  for (const part of chunk([...new Set(messageIds)], IN_CHUNK)) {
    const { rows } = await runShaped<ReceiptSourceRow>(
      tx,
      'receipt-sources',
      (p) =>
        `select "s"."message_id", "s"."account_id", "s"."registered_delivery", "s"."part_ids", ` +
        `"m"."sender", "m"."body", "m"."created_at" from "smpp_submits" as "s" ` +
        `inner join "messages" as "m" on "m"."id" = "s"."message_id" where "s"."message_id" ${p.in()}`,
      [list(part)],
    );
    for (const r of rows) {
      found.set(Number(r.message_id), {
        messageId: Number(r.message_id),
        accountId: Number(r.account_id),
        registeredDelivery: Number(r.registered_delivery),
        sender: r.sender,
        body: r.body,
        createdAt: Number(r.created_at),
        receiptIds: [...(r.part_ids ? r.part_ids.split(',') : []), String(r.message_id)],
      });
    }
  }
  return found;
}
