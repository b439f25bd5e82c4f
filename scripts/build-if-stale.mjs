#!/usr/bin/env node
// `npm start` runs this first. It builds (as `npm run build`: TypeScript, then the web console
// when its sources are here) only when a source file changed since the last build: building
// every time cost 12 s per start. An installed package has no src/ and nothing to do.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const consoleSrc = join(root, 'console');
const built = join(root, 'dist', 'main.js');

/** Newest modification time under `dir`, in ms; a directory's own counts (a file deleted or renamed). */
function newest(dir) {
  let latest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

if (existsSync(src)) {
  const sources = Math.max(
    newest(src),
    existsSync(consoleSrc) ? newest(consoleSrc) : 0,
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map(
      (f) => statSync(join(root, f)).mtimeMs,
    ),
  );
  if (!existsSync(built) || statSync(built).mtimeMs < sources) {
    process.stderr.write('smsgw: sources changed since the last build; building…\n');
    const result = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')],
      {
        stdio: 'inherit',
      },
    );
    // The console bundles src/domain too, so it is rebuilt whenever the server is.
    const consoleBuild =
      result.status === 0 && existsSync(join(consoleSrc, 'build.ts'))
        ? spawnSync(
            process.execPath,
            [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(consoleSrc, 'build.ts')],
            { stdio: 'inherit' },
          )
        : result;
    if (result.status !== 0 || consoleBuild.status !== 0) {
      // tsc writes its output even when it reports errors: make the next start build again.
      rmSync(built, { force: true });
      process.exit((result.status || consoleBuild.status) ?? 1);
    }
  }
}
