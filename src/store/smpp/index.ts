/** Storage of the SMPP server for customers (decisions §21). */
import type { Connection } from '../dialect.js';
import { smppBindStore, type SmppBindStore } from './binds.js';
import { smppDeliveryStore, type SmppDeliveryStore } from './deliveries.js';
import { smppUserStore, type SmppUserStore } from './users.js';

export interface SmppServerStore {
  readonly users: SmppUserStore;
  readonly binds: SmppBindStore;
  readonly deliveries: SmppDeliveryStore;
}

export function smppServerStore(conn: Connection): SmppServerStore {
  return {
    users: smppUserStore(conn.db),
    binds: smppBindStore(conn.db),
    deliveries: smppDeliveryStore(conn.db, conn.dialect),
  };
}

export type { SmppUser, NewSmppUser, SmppUserStore } from './users.js';
export type { SmppBindMode, SmppBindRow, SmppBindStore } from './binds.js';
export type { HeldSmppDelivery, NewSmppDelivery, SmppDeliveryKind, SmppDeliveryStore } from './deliveries.js';
