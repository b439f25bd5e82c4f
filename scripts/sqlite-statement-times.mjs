// Times every SQLite statement smsgw runs, per thread, by its text: a preload for profiling.
//
//   STATEMENT_TIMES_DIR=/tmp/st node --import ./scripts/sqlite-statement-times.mjs dist/main.js
//   STATEMENT_TIMES_DIR=/tmp/st node --import ./scripts/sqlite-statement-times.mjs --import tsx \
//     bench/main.ts engine --engine sqlite
//
// Each thread (the API's, the engine's) writes <pid>-<thread>.txt to the folder every 2 s and at
// exit: total ms, calls, µs per call, how many calls took over 2 ms (and their ms), the slowest,
// then the statement, costliest first. The time is the better-sqlite3 call itself (SQLite's
// work, and the thread being descheduled meanwhile), not Kysely's or smsgw's around it.
// (pg_stat_statements does the same for PostgreSQL: docs/scaling.md.)
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { threadId } from 'node:worker_threads';

const dir = process.env.STATEMENT_TIMES_DIR ?? 'statement-times';
// The better-sqlite3 of the checkout this file is in, whatever the working directory.
const Database = createRequire(import.meta.url)('better-sqlite3');
const probe = new Database(':memory:');
const statementPrototype = Object.getPrototypeOf(probe.prepare('select 1'));
probe.close();

const SLOW_NS = 2e6;
const stats = new Map();
for (const method of ['run', 'all', 'get', 'iterate']) {
  const original = statementPrototype[method];
  statementPrototype[method] = function timed(...args) {
    const started = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const ns = Number(process.hrtime.bigint() - started);
      const key = this.source.replace(/\s+/g, ' ').trim().slice(0, 200);
      let s = stats.get(key);
      if (s === undefined) stats.set(key, (s = { calls: 0, ns: 0, slow: 0, slowNs: 0, maxNs: 0 }));
      s.calls += 1;
      s.ns += ns;
      if (ns > SLOW_NS) {
        s.slow += 1;
        s.slowNs += ns;
      }
      if (ns > s.maxNs) s.maxNs = ns;
    }
  };
}

function write() {
  if (stats.size === 0) return;
  const lines = [...stats]
    .sort((a, b) => b[1].ns - a[1].ns)
    .map(([sql, s]) =>
      [
        `${(s.ns / 1e6).toFixed(0).padStart(7)} ms`,
        `${String(s.calls).padStart(8)} calls`,
        `${(s.ns / s.calls / 1e3).toFixed(1).padStart(8)} µs`,
        `slow ${s.slow}/${(s.slowNs / 1e6).toFixed(0)} ms`,
        `max ${(s.maxNs / 1e6).toFixed(1)} ms`,
        sql,
      ].join('  '),
    );
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/${process.pid}-${threadId}.txt`, `${lines.join('\n')}\n`);
}
process.on('exit', write);
setInterval(write, 2000).unref();
