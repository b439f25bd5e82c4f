import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { hostEngineThread } from '../../src/app/engine-host.js';

const logger = pino({ level: 'silent' });
const options = { logger, onWebhooksQueued: () => {} };
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

  it('asks the thread for connector states and passes webhook wake-ups on', async () => {
    let queued = 0;
    const worker = thread(`
      parentPort.on('message', (m) => {
        if (m.type === 'states') parentPort.postMessage({ type: 'states', id: m.id, states: { a: { bound: true } } });
        if (m.type === 'stop') { parentPort.postMessage({ type: 'stopped' }); parentPort.close(); }
      });
      parentPort.postMessage({ type: 'ready' });
      parentPort.postMessage({ type: 'webhooks' });`);
    const engine = await hostEngineThread(worker, { logger, onWebhooksQueued: () => (queued += 1) });
    await expect(engine.connectorStates()).resolves.toEqual({ a: { bound: true } });
    expect(queued).toBe(1);
    await engine.stop();
    await expect(engine.connectorStates()).resolves.toEqual({});
  });
});
