import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';

const KEY = 'shutdown-key';

describe('stopping the server', () => {
  let db: TestDatabase | null = null;
  let server: RunningServer | null = null;
  let socket: Socket | null = null;
  afterAll(async () => {
    socket?.destroy();
    await server?.stop();
    await db?.drop();
  });

  it('does not wait for a client that never sends the rest of its request', async () => {
    db = await createTestDatabase('sqlite');
    const config = loadConfig({
      SMSGW_DATABASE_URL: db.url,
      SMSGW_PORT: '0',
      SMSGW_LOG_LEVEL: 'silent',
      SMSGW_BOOTSTRAP_KEY: KEY,
    });
    server = await startServer(config, pino({ level: 'silent' }));
    const { port } = server.app.server.address() as AddressInfo;
    const open = connect({ host: '127.0.0.1', port });
    socket = open;
    await new Promise<void>((resolve) => open.once('connect', resolve));
    const closed = new Promise<void>((resolve) => open.once('close', () => resolve()));
    // Headers promise 100 bytes of body; one arrives. Node would wait minutes for the rest.
    open.write(
      `POST /v1/sms/message HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));

    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeLessThan(9_000);
    await closed;
  });

  it('fails to start on a port in use with its database closed', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-taken-'));
    const path = join(dir, 'smsgw.sqlite');
    try {
      const { port } = taken.address() as AddressInfo;
      await expect(
        startServer(
          loadConfig({
            SMSGW_DATABASE_URL: `sqlite:${path}`,
            SMSGW_PORT: String(port),
            SMSGW_LOG_LEVEL: 'silent',
          }),
          pino({ level: 'silent' }),
        ),
      ).rejects.toThrow(/EADDRINUSE/);
      // SQLite removes the write-ahead log when the file's last connection closes.
      expect(existsSync(path)).toBe(true);
      expect(existsSync(`${path}-wal`)).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports not ready from the moment stop() begins, before the API closes', async () => {
    const second = await createTestDatabase('sqlite');
    const running = await startServer(
      loadConfig({ SMSGW_DATABASE_URL: second.url, SMSGW_PORT: '0', SMSGW_LOG_LEVEL: 'silent' }),
      pino({ level: 'silent' }),
    );
    try {
      const ready = await running.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ready', checks: { engine: 'ok' } });
      const stopped = running.stop();
      const draining = await running.app.inject({ method: 'GET', url: '/readyz' });
      expect(draining.statusCode).toBe(503);
      expect(draining.json()).toMatchObject({ status: 'not_ready', checks: { engine: 'shutting down' } });
      await stopped;
    } finally {
      await running.stop();
      await second.drop();
    }
  });
});
