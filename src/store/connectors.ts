import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, SmppConnectorsTable } from './schema.js';

export interface ConnectorRecord {
  id: number;
  name: string;
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType: string;
  bindMode: 'transceiver' | 'transmitter_receiver';
  tls: boolean;
  window: number;
  /** submit_sm per second; 0 = unlimited. */
  throughput: number;
  /** null: chosen per sender. */
  sourceTon: number | null;
  sourceNpi: number | null;
  destTon: number;
  destNpi: number;
  defaultDataCoding: 0 | 3;
  concatenation: 'udh8' | 'udh16' | 'sar' | 'payload';
  requestReceipts: boolean;
  enabled: boolean;
  /** Binds to this SMSC across all nodes (decisions §23). */
  maxBinds: number;
  createdAt: number;
  updatedAt: number;
}

export interface RouteRecord {
  id: number;
  prefix: string;
  /** The connector's name. */
  connector: string;
  priority: number;
  createdAt: number;
}

export type NewConnector = Omit<ConnectorRecord, 'id' | 'createdAt' | 'updatedAt' | 'maxBinds'> & {
  readonly maxBinds?: number;
};
export type ConnectorPatch = Partial<Omit<ConnectorRecord, 'id' | 'name' | 'createdAt' | 'updatedAt'>>;

/** SMPP connectors and the routes that choose them, as the admin API and CLI change them. */
export interface ConnectorStore {
  /** In creation order. */
  list(): Promise<ConnectorRecord[]>;
  get(name: string): Promise<ConnectorRecord | null>;
  /** Null when the name is taken. */
  create(input: NewConnector, now: number): Promise<ConnectorRecord | null>;
  /** Null when there is no connector of that name. */
  update(name: string, patch: ConnectorPatch, now: number): Promise<ConnectorRecord | null>;
  /** Removes the connector with its routes. */
  remove(name: string): Promise<boolean>;
  /** Ordered by priority, then longer prefix first, then id. */
  listRoutes(): Promise<RouteRecord[]>;
  addRoute(
    input: { prefix: string; connector: string; priority: number },
    now: number,
  ): Promise<RouteRecord | 'no_connector' | 'exists'>;
  removeRoute(id: number): Promise<boolean>;
}

export function connectorStore(db: Kysely<Database>): ConnectorStore {
  return {
    async list() {
      // By id, not name: the engines collate text differently, and creation order reads well.
      const rows = await db.selectFrom('smpp_connectors').selectAll().orderBy('id').execute();
      return rows.map(toConnector);
    },

    async get(name) {
      const row = await db
        .selectFrom('smpp_connectors')
        .selectAll()
        .where('name', '=', name)
        .executeTakeFirst();
      return row ? toConnector(row) : null;
    },

    async create(input, now) {
      const row = await db
        .insertInto('smpp_connectors')
        .values({
          name: input.name,
          host: input.host,
          port: input.port,
          system_id: input.systemId,
          password: input.password,
          ...toColumns(input),
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.column('name').doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toConnector(row) : null;
    },

    async update(name, patch, now) {
      const row = await db
        .updateTable('smpp_connectors')
        .set({ ...toColumns(patch), updated_at: now })
        .where('name', '=', name)
        .returningAll()
        .executeTakeFirst();
      return row ? toConnector(row) : null;
    },

    async remove(name) {
      return db.transaction().execute(async (tx) => {
        const row = await tx
          .selectFrom('smpp_connectors')
          .select('id')
          .where('name', '=', name)
          .executeTakeFirst();
        if (!row) return false;
        await tx.deleteFrom('smpp_routes').where('connector_id', '=', row.id).execute();
        const result = await tx.deleteFrom('smpp_connectors').where('id', '=', row.id).executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      });
    },

    async listRoutes() {
      const rows = await db
        .selectFrom('smpp_routes')
        .innerJoin('smpp_connectors', 'smpp_connectors.id', 'smpp_routes.connector_id')
        .select([
          'smpp_routes.id',
          'smpp_routes.prefix',
          'smpp_connectors.name as connector',
          'smpp_routes.priority',
          'smpp_routes.created_at',
        ])
        .orderBy('smpp_routes.priority')
        .orderBy((eb) => eb.fn('length', ['smpp_routes.prefix']), 'desc')
        .orderBy('smpp_routes.id')
        .execute();
      return rows.map((r) => ({
        id: r.id,
        prefix: r.prefix,
        connector: r.connector,
        priority: r.priority,
        createdAt: r.created_at,
      }));
    },

    async addRoute(input, now) {
      // One transaction, so the connector cannot be removed between the lookup and the insert.
      return db.transaction().execute(async (tx) => {
        const connector = await tx
          .selectFrom('smpp_connectors')
          .select('id')
          .where('name', '=', input.connector)
          .executeTakeFirst();
        if (!connector) return 'no_connector' as const;
        const row = await tx
          .insertInto('smpp_routes')
          .values({
            prefix: input.prefix,
            connector_id: connector.id,
            priority: input.priority,
            created_at: now,
          })
          .onConflict((oc) => oc.columns(['prefix', 'connector_id']).doNothing())
          .returningAll()
          .executeTakeFirst();
        if (!row) return 'exists' as const;
        return {
          id: row.id,
          prefix: row.prefix,
          connector: input.connector,
          priority: row.priority,
          createdAt: row.created_at,
        };
      });
    },

    async removeRoute(id) {
      const result = await db.deleteFrom('smpp_routes').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** The columns of the fields present; flags become 0/1 as everywhere in the schema. */
function toColumns(c: ConnectorPatch): Updateable<SmppConnectorsTable> {
  const flag = (b: boolean | undefined) => (b === undefined ? undefined : b ? 1 : 0);
  const columns: Updateable<SmppConnectorsTable> = {
    host: c.host,
    port: c.port,
    system_id: c.systemId,
    password: c.password,
    system_type: c.systemType,
    bind_mode: c.bindMode,
    tls: flag(c.tls),
    window: c.window,
    throughput: c.throughput,
    source_ton: c.sourceTon,
    source_npi: c.sourceNpi,
    dest_ton: c.destTon,
    dest_npi: c.destNpi,
    default_data_coding: c.defaultDataCoding,
    concatenation: c.concatenation,
    request_receipts: flag(c.requestReceipts),
    enabled: flag(c.enabled),
    max_binds: c.maxBinds,
  };
  return Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined));
}

function toConnector(row: Selectable<SmppConnectorsTable>): ConnectorRecord {
  return {
    id: row.id,
    name: row.name,
    host: row.host,
    port: row.port,
    systemId: row.system_id,
    password: row.password,
    systemType: row.system_type,
    bindMode: row.bind_mode as ConnectorRecord['bindMode'],
    tls: row.tls === 1,
    window: row.window,
    throughput: row.throughput,
    sourceTon: row.source_ton,
    sourceNpi: row.source_npi,
    destTon: row.dest_ton,
    destNpi: row.dest_npi,
    defaultDataCoding: row.default_data_coding as ConnectorRecord['defaultDataCoding'],
    concatenation: row.concatenation as ConnectorRecord['concatenation'],
    requestReceipts: row.request_receipts === 1,
    enabled: row.enabled === 1,
    maxBinds: row.max_binds,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
