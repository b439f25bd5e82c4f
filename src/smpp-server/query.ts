/** query_sm: the state of a message submitted by the account, in SMPP terms (§4.8). */
import { MessageState } from '../carriers/smpp/pdu/index.js';
import { isFinal } from '../domain/status.js';
import type { Account, Store } from '../store/port.js';
import { messageStateOf, STAT_OF_STATUS } from './deliver-pdu.js';
import { formatSmppTime } from './smpp-time.js';

export interface QueryAnswer {
  readonly messageId: string;
  readonly finalDate: string;
  readonly messageState: number;
  readonly errorCode: number;
}

/** Null when the id is not a message of this account. */
export async function querySmAnswer(
  store: Store,
  account: Account,
  rawId: string,
): Promise<QueryAnswer | null> {
  if (!/^\d{1,15}$/.test(rawId)) return null;
  const message = await store.messages.get(account.id, Number(rawId));
  if (!message) return null;
  const recipients = await store.messages.recipientStatuses(message.id);
  // One state for the message: en route while any recipient is open, else the first
  // recipient's (a submit_sm has one; a submit_multi's are told apart by their receipts).
  const open = recipients.some((r) => !isFinal(r.status));
  const first = recipients[0];
  const stat = !open && first ? STAT_OF_STATUS[first.status] : undefined;
  return {
    messageId: rawId,
    finalDate: !open && message.completeAt !== null ? formatSmppTime(message.completeAt) : '',
    messageState: stat ? messageStateOf(stat) : MessageState.ENROUTE,
    errorCode: 0,
  };
}
