import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Migration } from './migration.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- DDL runs before the typed schema exists
async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  const big = d.bigInteger;
  // SMPP links, configured through the admin API and CLI. Values are checked by
  // src/app/connectors.ts before they get here; the defaults serve rows written by hand.
  await db.schema
    .createTable('smpp_connectors')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('password', 'text', (c) => c.notNull())
    .addColumn('system_type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('bind_mode', 'text', (c) => c.notNull().defaultTo('transceiver'))
    .addColumn('tls', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('window', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('throughput', 'integer', (c) => c.notNull().defaultTo(0))
    // null: chosen per sender (international/ISDN for an msisdn, alphanumeric otherwise).
    .addColumn('source_ton', 'integer')
    .addColumn('source_npi', 'integer')
    .addColumn('dest_ton', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('dest_npi', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('default_data_coding', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('concatenation', 'text', (c) => c.notNull().defaultTo('udh8'))
    .addColumn('request_receipts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('smpp_routes')
    .addColumn('id', d.serialPrimaryKey, (c) => c.primaryKey())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('connector_id', big, (c) => c.notNull().references('smpp_connectors.id'))
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', big, (c) => c.notNull())
    .addUniqueConstraint('smpp_routes_prefix_connector', ['prefix', 'connector_id'])
    .execute();
  // Removing a connector deletes its routes by connector_id.
  await db.schema.createIndex('smpp_routes_connector').on('smpp_routes').column('connector_id').execute();
}

export const connectors: Migration = { version: 5, name: 'connectors', up };
