import { ConflictError } from '../domain/errors.js';
import type { Account, Store } from '../store/port.js';
import { outboundWithStatus } from './outbound-view.js';
import { findMessage, messageView } from './read-messages.js';

export interface ControlDeps {
  readonly store: Store;
  readonly now: () => number;
  /** New work may be due: wake the engine. */
  readonly wake?: () => void;
}

/** PATCH /sms/message/{id} {"paused": …} (decisions §3). */
export async function setPaused(deps: ControlDeps, account: Account, id: number, paused: boolean) {
  const message = await findMessage(deps.store, account, id);
  const outcome = paused
    ? await deps.store.engine.pause(message.id)
    : await deps.store.engine.resume(message.id, deps.now());
  if (outcome === 'nothing_to_change') {
    throw new ConflictError(
      'paused',
      paused
        ? 'The message has no pending recipients left to pause'
        : 'Every recipient of the message has a final status; nothing can change',
    );
  }
  if (!paused) deps.wake?.();
  return messageView(deps.store, (await deps.store.messages.get(account.id, message.id))!);
}

/** DELETE /sms/message/{id}: cancel recipients not yet sent; the message stays readable. */
export async function cancelMessage(deps: ControlDeps, account: Account, id: number) {
  const message = await findMessage(deps.store, account, id);
  await deps.store.engine.cancel(message.id, deps.now());
  const updated = (await deps.store.messages.get(account.id, message.id))!;
  return outboundWithStatus(updated, await deps.store.messages.recipientStatuses(message.id));
}
