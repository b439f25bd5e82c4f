import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository's root, where `dist/` is. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * The arguments that start the server as `npm start` runs it: compiled, from dist/, built first
 * when a source changed since the last build. Under tsx each server process carried tsx's
 * loader thread too (about 40 MB more RSS) and compiled its modules, the engine thread's
 * included, while the bench was measuring it.
 */
export function builtServerArgs(): string[] {
  const built = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building smsgw failed');
  return ['dist/main.js'];
}
