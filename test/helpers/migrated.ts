import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from '../../src/store/dialect.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { connectPostgres } from '../../src/store/postgres/connect.js';
import { connectSqlite } from '../../src/store/sqlite/connect.js';
import { adminQuery, schemaUrl } from './engines.js';

/** An empty database of `engine`, migrated by hand up to `version`, and how to remove it. */
export async function databaseAt(engine: 'sqlite' | 'postgres', version: number) {
  let conn: Connection;
  let remove: () => Promise<void>;
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-test-'));
    conn = connectSqlite(join(dir, 'smsgw.sqlite'));
    remove = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    await adminQuery(`create schema ${schema}`);
    conn = connectPostgres(schemaUrl(schema));
    remove = () => adminQuery(`drop schema ${schema} cascade`);
  }
  // The version table as migrate() makes it, so that migrate() later takes over from here.
  await conn.db.schema
    .createTable('smsgw_migrations')
    .addColumn('version', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('applied_at', conn.dialect.bigInteger, (c) => c.notNull())
    .execute();
  for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
    await conn.db.transaction().execute(async (tx) => {
      await m.up(tx, conn.dialect);
      await tx
        .insertInto('smsgw_migrations')
        .values({ version: m.version, name: m.name, applied_at: 0 })
        .execute();
    });
  }
  return {
    conn,
    async drop() {
      await conn.close();
      await remove();
    },
  };
}
