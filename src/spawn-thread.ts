import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside the caller (`moduleUrl`: its
 * import.meta.url). From TypeScript source (tests, the benches, tsx) the thread needs tsx's
 * loader as well, and Node 20 does not apply --import hooks to a worker's entry module:
 * register them first.
 */
export function spawnThread(moduleUrl: string, name: string, options: WorkerOptions): Worker {
  if (!moduleUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, moduleUrl), options);
  const entry = JSON.stringify(new URL(`./${name}.ts`, moduleUrl).href);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); })`;
  return new Worker(boot, { ...options, eval: true });
}
