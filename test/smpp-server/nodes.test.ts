/**
 * decisions §21 with §23: two nodes on one PostgreSQL. A customer submits through a bind on one
 * node and receives its receipts through a bind on the other; max_binds counts both nodes.
 */
import { pino } from 'pino';
import smpp from 'smpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSmppUser } from '../../src/app/smpp-users.js';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { Client, waitFor } from './harness.js';

describe('SMPP server across two nodes on postgres', () => {
  let db: TestDatabase;
  const nodes: RunningServer[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    for (const id of ['node-a', 'node-b']) {
      const config = loadConfig({
        SMSGW_DATABASE_URL: db.url,
        SMSGW_PORT: '0',
        SMSGW_LOG_LEVEL: 'silent',
        SMSGW_SIM_DELAY_MS: '50',
        SMSGW_NODE_ID: id,
        SMSGW_SMPP_SERVER_PORT: '0',
        SMSGW_BOOTSTRAP_KEY: 'nodes-key',
      });
      nodes.push(await startServer(config, pino({ level: 'silent' })));
    }
    const account = (await nodes[0]!.store.accounts.getByName('default'))!;
    await setSmppUser(
      nodes[0]!.store,
      account.id,
      { systemId: 'multi', password: 'pw', maxBinds: 2 },
      Date.now(),
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const n of nodes) await n.stop();
    await db?.drop();
  });

  it('submits on one node, gets the receipt on the other, and counts binds across both', async () => {
    const tx = await Client.connect(nodes[0]!.smpp!.port);
    const rx = await Client.connect(nodes[1]!.smpp!.port);
    clients.push(tx, rx);
    expect((await tx.bind('multi', 'pw', 'bind_transmitter')).command_status).toBe(0);
    expect((await rx.bind('multi', 'pw', 'bind_receiver')).command_status).toBe(0);
    const third = await Client.connect(nodes[0]!.smpp!.port);
    clients.push(third);
    expect((await third.bind('multi', 'pw')).command_status).toBe(smpp.errors.ESME_RBINDFAIL);

    const resp = await tx.call('submit_sm', {
      source_addr: 'Multi',
      destination_addr: '447700900301',
      registered_delivery: 1,
      short_message: 'across nodes',
    });
    expect(resp.command_status).toBe(0);
    const id = String(resp.message_id);
    const receipt = await waitFor(
      () => rx.delivered.find((d) => d.receipted_message_id === id),
      'the receipt on node b',
    );
    expect(receipt.message_state).toBe(2);
    expect(tx.delivered).toEqual([]);
  });
});
