import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running `module`, a path relative to `callerUrl` (the caller's
 * import.meta.url) without its extension. From TypeScript source (tests, the benches, tsx) the
 * thread needs tsx's loader as well, and Node 20 does not apply --import hooks to a worker's
 * entry module: it registers them first.
 */
export function startWorker(callerUrl: string, module: string, options: WorkerOptions): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`${module}.js`, callerUrl), options);
  const entry = JSON.stringify(new URL(`${module}.ts`, callerUrl).href);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); })`;
  return new Worker(boot, { ...options, eval: true });
}
