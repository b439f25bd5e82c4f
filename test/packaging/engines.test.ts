import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', ROOT), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

/** The first and a late release of each Node line smsgw supports (README: Node.js 20–24). */
const NODE_VERSIONS = ['20.19.0', '20.20.0', '22.13.0', '22.20.0', '24.0.0', '24.11.0'];

/** Issue 16 item 9: `npm ci` warns EBADENGINE on no supported Node version. */
describe('engines', () => {
  it('smsgw declares every supported Node line', () => {
    for (const version of NODE_VERSIONS)
      expect(semver.satisfies(version, pkg.engines.node), version).toBe(true);
  });

  it('every package in the lockfile runs on every supported Node version', () => {
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      if (path === '' || range === undefined) continue;
      for (const version of NODE_VERSIONS) {
        if (!semver.satisfies(version, range))
          refused.push(`${path}@${entry.version} needs node ${range} (not ${version})`);
      }
    }
    expect(refused).toEqual([]);
  });
});
