import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/build-if-stale.mjs', import.meta.url));

/**
 * `npm start`'s prestart (scripts/build-if-stale.mjs) in a project of its own, whose compiler
 * writes what it was asked into a log: the test sees when a build happens without compiling.
 */
describe('npm start builds only when the sources changed', () => {
  let project: string;
  const built = () => join(project, 'dist', 'main.js');
  const builds = () =>
    existsSync(join(project, 'tsc.log'))
      ? readFileSync(join(project, 'tsc.log'), 'utf8').trim().split('\n').length
      : 0;
  const start = () =>
    execFileSync(process.execPath, [join(project, 'scripts', 'build-if-stale.mjs')], { stdio: 'pipe' });
  const age = (path: string, secondsAgo: number) => {
    const at = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(path, at, at);
  };

  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'smsgw-prestart-'));
    for (const dir of ['scripts', 'src/app', 'node_modules/typescript/bin', 'dist'])
      mkdirSync(join(project, dir), { recursive: true });
    copyFileSync(SCRIPT, join(project, 'scripts', 'build-if-stale.mjs'));
    // The compiler: records the call and writes dist/main.js, as tsc would.
    writeFileSync(
      join(project, 'node_modules/typescript/bin/tsc'),
      `const fs = require('node:fs'); const path = require('node:path');
       const root = path.resolve(__dirname, '../../..');
       fs.appendFileSync(path.join(root, 'tsc.log'), process.argv.slice(2).join(' ') + '\\n');
       fs.writeFileSync(path.join(root, 'dist/main.js'), '');`,
    );
    for (const file of [
      'tsconfig.json',
      'tsconfig.build.json',
      'package-lock.json',
      'src/main.ts',
      'src/app/engine.ts',
    ]) {
      writeFileSync(join(project, file), '');
      age(join(project, file), 100);
    }
    for (const dir of ['src', 'src/app']) age(join(project, dir), 100);
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  it('builds when there is no build yet, then not again while nothing changes', () => {
    rmSync(join(project, 'dist'), { recursive: true });
    mkdirSync(join(project, 'dist'));
    start();
    expect(builds()).toBe(1);
    expect(readFileSync(join(project, 'tsc.log'), 'utf8')).toContain('tsconfig.build.json');
    start();
    start();
    expect(builds()).toBe(1);
  });

  it('builds again after a source file changes or is deleted', () => {
    writeFileSync(built(), '');
    start();
    expect(builds()).toBe(0);
    writeFileSync(join(project, 'src/app/engine.ts'), '// changed');
    start();
    expect(builds()).toBe(1);
    age(built(), 50);
    rmSync(join(project, 'src/main.ts'));
    start();
    expect(builds()).toBe(2);
  });

  it('builds the web console after the server when its sources are there, and again when they change', () => {
    mkdirSync(join(project, 'console/src'), { recursive: true });
    mkdirSync(join(project, 'node_modules/tsx/dist'), { recursive: true });
    // The console build: records the call, as the compiler does.
    writeFileSync(
      join(project, 'node_modules/tsx/dist/cli.mjs'),
      `import fs from 'node:fs'; import path from 'node:path'; import { fileURLToPath } from 'node:url';
       const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
       fs.appendFileSync(path.join(root, 'tsc.log'), 'console ' + process.argv.slice(2).join(' ') + '\\n');`,
    );
    for (const file of ['console/build.ts', 'console/src/main.tsx']) {
      writeFileSync(join(project, file), '');
      age(join(project, file), 100);
    }
    for (const dir of ['console', 'console/src']) age(join(project, dir), 100);
    writeFileSync(built(), '');
    start();
    expect(builds()).toBe(0);
    writeFileSync(join(project, 'console/src/main.tsx'), '// changed');
    start();
    const log = readFileSync(join(project, 'tsc.log'), 'utf8').trim().split('\n');
    expect(log).toHaveLength(2);
    expect(log[0]).toContain('tsconfig.build.json');
    expect(log[1]).toMatch(/^console .*console\/build\.ts$/);
  });

  it('does nothing in an installed package, which has no sources', () => {
    rmSync(join(project, 'src'), { recursive: true });
    rmSync(join(project, 'dist'), { recursive: true });
    start();
    expect(builds()).toBe(0);
  });
});
