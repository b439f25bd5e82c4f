import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { hostEngineThread } from '../../src/engine/host.js';

const logger = pino({ level: 'silent' });
const options = { logger, node: { id: 'n-test', host: 'test', pid: 1 } };
/** A stand-in engine thread that speaks the protocol's first words, then does what `then` says. */
const thread = (then: string) =>
  new Worker(`const { parentPort } = require('node:worker_threads'); ${then}`, { eval: true });

describe('the API thread hosting the engine thread', () => {
  it('rejects the start with the reason the thread gives', async () => {
    const worker = thread(`parentPort.postMessage({ type: 'failed', message: 'no database' });`);
    await expect(hostEngineThread(worker, options)).rejects.toThrow('no database');
  });

  it('rejects the start when the thread exits before it is ready', async () => {
    await expect(hostEngineThread(thread('process.exit(3);'), options)).rejects.toThrow(/code 3/);
  });

  it('reports a thread that dies after starting, and then stops and answers at once', async () => {
    const worker = thread(
      `parentPort.postMessage({ type: 'ready' }); setTimeout(() => process.exit(5), 50);`,
    );
    const engine = await hostEngineThread(worker, options);
    const error = await engine.failed;
    expect(error.message).toMatch(/code 5/);
    await expect(engine.connectorStates()).resolves.toEqual({});
    await engine.stop();
  });

  it('asks the thread for connector states and webhook endpoints, and sends wake-ups once a turn', async () => {
    const worker = thread(`
      const wakes = [];
      parentPort.on('message', (m) => {
        if (m.type === 'wake') wakes.push(m.kinds);
        if (m.type === 'states') parentPort.postMessage({ type: 'states', id: m.id, states: { a: { bound: true } } });
        if (m.type === 'endpoints') parentPort.postMessage({ type: 'endpoints', id: m.id, endpoints: wakes });
        if (m.type === 'stop') { parentPort.postMessage({ type: 'stopped' }); parentPort.close(); }
      });
      parentPort.postMessage({ type: 'ready' });`);
    const engine = await hostEngineThread(worker, options);
    await expect(engine.connectorStates()).resolves.toEqual({ a: { bound: true } });
    engine.wake(['sends']);
    engine.wake(['webhooks']);
    engine.wake(['sends']);
    await new Promise((r) => setImmediate(r));
    engine.wake();
    await new Promise((r) => setImmediate(r));
    // The stand-in answers "endpoints" with the wake-ups it received, in order.
    await expect(engine.webhookEndpoints()).resolves.toEqual([['sends', 'webhooks'], null]);
    await engine.stop();
    await expect(engine.connectorStates()).resolves.toEqual({});
  });
});
