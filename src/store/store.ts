import { accountStore } from './accounts.js';
import type { Connection } from './dialect.js';
import { messageStore } from './messages.js';
import type { Store } from './port.js';

export function createStore(conn: Connection): Store {
  return {
    accounts: accountStore(conn.db),
    messages: messageStore(conn.db, conn.dialect),
    close: () => conn.close(),
  };
}
