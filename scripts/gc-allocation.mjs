// What each thread of smsgw allocated, read from a `node --trace-gc` log: a steadier figure
// than CPU time on a shared machine, since it does not move with the neighbours.
//
//   node --trace-gc dist/main.js > trace.log          (run the load, stop the server)
//   node scripts/gc-allocation.mjs trace.log --messages 50000
//
// Every collection prints the heap before and after it; what a thread allocated is, to within
// its heap's growth over the run, the sum of what its collections freed. Threads are told apart
// by their isolate's address (the API thread's is the first one printed). With --messages, each
// line also gives KB per message.
import { readFileSync } from 'node:fs';
import console from 'node:console';
import process from 'node:process';

const [file, ...rest] = process.argv.slice(2);
if (!file || file === '--help') {
  console.log('usage: node scripts/gc-allocation.mjs TRACE_LOG [--messages N]');
  process.exit(file ? 0 : 2);
}
const at = rest.indexOf('--messages');
const messages = at >= 0 ? Number(rest[at + 1]) : null;

// [12345:0x3121cc60]  1018 ms: Mark-Compact 40.2 (65.7) -> 26.9 (66.7) MB, …
const LINE =
  /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: (Scavenge|Mark-Compact|Minor Mark-Sweep)\b.*? ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/;
const isolates = new Map();
for (const line of readFileSync(file, 'utf8').split('\n')) {
  const m = LINE.exec(line);
  if (!m) continue;
  const [, isolate, kind, before, after] = m;
  let s = isolates.get(isolate);
  if (!s) isolates.set(isolate, (s = { freedMb: 0, minor: 0, major: 0 }));
  s.freedMb += Number(before) - Number(after);
  if (kind === 'Mark-Compact') s.major += 1;
  else s.minor += 1;
}
for (const [isolate, s] of isolates) {
  const perMessage = messages ? `, ${((s.freedMb * 1024) / messages).toFixed(1)} KB per message` : '';
  console.log(
    `${isolate}: ${s.freedMb.toFixed(0)} MB freed by ${s.minor} minor and ${s.major} major collections${perMessage}`,
  );
}
