/**
 * CPU time from /proc (Linux), in microseconds. Rates on a shared 2-core machine vary from run
 * to run; CPU per recipient barely does, so the benches report both.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** The fields of /proc/PID/stat after the command name, or null when the process is gone. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  } catch {
    return null;
  }
}

const micros = (ticks: number) => (ticks * 1_000_000) / TICKS_PER_SECOND;

/** utime + stime of a running process, all threads, in microseconds. */
export function cpuMicros(pid: number): number {
  const fields = statFields(pid);
  if (!fields) throw new Error(`process ${pid} is gone`);
  return micros(Number(fields[11]) + Number(fields[12]));
}

/**
 * What the PostgreSQL server running on this machine has used: every live `postgres` process
 * (backends, WAL writer, checkpointer, autovacuum) plus, from the postmaster (the one whose parent
 * is not a postgres process), the CPU of its children that have exited. Null when no PostgreSQL
 * runs here (a remote server): the benches then print no figure rather than a wrong one.
 */
function postgresCpuMicros(): number | null {
  const processes = new Map<string, string[]>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== 'postgres') continue;
    const fields = statFields(pid);
    if (fields) processes.set(pid, fields);
  }
  if (processes.size === 0) return null;
  let ticks = 0;
  for (const fields of processes.values()) {
    ticks += Number(fields[11]) + Number(fields[12]);
    // The postmaster: children reaped by it (a closed connection's backend) count here.
    if (!processes.has(fields[1]!)) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return micros(ticks);
}

/**
 * Starts counting the local PostgreSQL server's CPU: the returned function gives the
 * microseconds it used since, or null when no PostgreSQL runs here.
 */
export function postgresCpuSince(): () => number | null {
  const before = postgresCpuMicros();
  return () => {
    const after = before === null ? null : postgresCpuMicros();
    return before === null || after === null ? null : after - before;
  };
}
