import { parentPort, workerData } from 'node:worker_threads';
import { runLoad, type LoadSpec } from './load.js';

/** Entry point of the load generator's worker thread (see runLoadIn). */
const result = await runLoad(workerData as LoadSpec);
parentPort!.postMessage(result, [result.latenciesMs.buffer as ArrayBuffer]);
