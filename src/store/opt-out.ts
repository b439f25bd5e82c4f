/**
 * Inbound opt-out keywords (decisions §17), applied in the transaction that stores the inbound
 * messages, on every path that stores them (a carrier's, through the engine; the simulator's,
 * through the API): a STOP that commits is on the list for every node at once, and no STOP is
 * stored without being honoured.
 */
import type { Kysely } from 'kysely';
import { optOutAction } from '../domain/opt-out.js';
import { countParts } from '../domain/parts.js';
import type { InboundRecord } from './inbound.js';
import { createIn } from './messages.js';
import type { Database } from './schema.js';
import { removeSuppressionsIn, suppressIn, type SuppressionEffects } from './suppressions.js';

export async function applyOptOutsIn(
  tx: Kysely<Database>,
  effects: SuppressionEffects,
  stored: readonly InboundRecord[],
  now: number,
): Promise<void> {
  const keywords = stored.flatMap((record) => {
    const action = record.accountId === null ? null : optOutAction(record.body);
    return action === null ? [] : [{ record, accountId: record.accountId!, action }];
  });
  if (keywords.length === 0) return;
  const accounts = new Map(
    (
      await tx
        .selectFrom('accounts')
        .select(['id', 'opt_out_keywords', 'opt_out_reply', 'credits'])
        .where('id', 'in', [...new Set(keywords.map((k) => k.accountId))])
        .execute()
    ).map((a) => [a.id, a]),
  );
  for (const { record, accountId, action } of keywords) {
    const account = accounts.get(accountId);
    if (!account || account.opt_out_keywords !== 1) continue;
    // In arrival order, so STOP then START from one number leaves it sendable.
    if (action === 'stop') await suppressIn(tx, effects, accountId, [record.sender], 'stop', now);
    else await removeSuppressionsIn(tx, accountId, [record.sender]);
    if (account.opt_out_reply === null || !record.sender.startsWith('+')) continue;
    const { encoding, numParts } = countParts(account.opt_out_reply);
    // The answer is an ordinary message from the number the keyword reached, due now. It is not
    // checked against the list it just joined: the confirmation of a STOP is the one message
    // carriers expect after it. An account without credit for it sends none.
    await createIn(tx, effects.dialect, [
      {
        message: {
          accountId,
          sender: record.recipient,
          body: account.opt_out_reply,
          ref: null,
          callbackUrl: null,
          deliveryReport: null,
          sendAt: now,
          expiresAt: null,
          paused: false,
          createdAt: now,
          numParts,
          encoding,
          numRecipients: 1,
        },
        recipients: [record.sender],
        credits: account.credits === null ? 0 : numParts,
      },
    ]);
  }
}
