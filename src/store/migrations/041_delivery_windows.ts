import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  // decisions §20: the account's default window, as the JSON of the body field `window`.
  await db.schema.alterTable('accounts').addColumn('window', 'text').execute();
  // A pending recipient whose window opens after its message's send_at is released no earlier
  // than this; null: with its message. The release job of the message is set to the earliest one.
  await db.schema.alterTable('recipients').addColumn('release_at', d.bigInteger).execute();
  // The window a message was sent with: its release checks it again, so a recipient released
  // late (a paused message resumed at night) still waits for its window.
  await db.schema.alterTable('messages').addColumn('window', 'text').execute();
}

export const deliveryWindows: Migration = { version: 41, name: 'delivery_windows', up };
