import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/engines.js';
import { api, freePort, startServerProcess, type ServerProcess } from '../helpers/process.js';

const KEY = 'crash-test-key';
const FINAL = new Set([
  'delivered',
  'cancelled',
  'expired',
  'aborted',
  'rejected',
  'failed',
  'deleted',
  'unknown',
]);

function recipients(message: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `+6149${String(message)}${String(i).padStart(5, '0')}`);
}

describe.each(ENGINES)('crash safety on %s', (engineName) => {
  let db: TestDatabase | null = null;
  let dir = '';
  const servers: ServerProcess[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0))
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await db?.drop();
    db = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const env = (journal: string) => ({
    SMSGW_DATABASE_URL: db!.url,
    SMSGW_BOOTSTRAP_KEY: KEY,
    SMSGW_SIM_DELAY_MS: '400',
    SMSGW_SIM_THROUGHPUT: '1500',
    SMSGW_SIM_JOURNAL: journal,
  });

  /** Carrier-side record: how many times each recipient reached the simulated SMSC. */
  const journalCounts = (journal: string) => {
    const counts = new Map<string, number>();
    for (const line of readFileSync(journal, 'utf8').split('\n').filter(Boolean)) {
      const { reference } = JSON.parse(line) as { reference: string };
      counts.set(reference, (counts.get(reference) ?? 0) + 1);
    }
    return counts;
  };

  const allRecipients = async () =>
    db!.conn.db.selectFrom('recipients').select(['id', 'status', 'reached_carrier']).execute();

  it('SIGKILL with recipients in every state: all end final, each submitted once but for the counted window', async () => {
    db = await createTestDatabase(engineName);
    dir = mkdtempSync(join(tmpdir(), 'smsgw-crash-'));
    const journal = join(dir, 'journal.jsonl');
    const port = await freePort();
    const first = await startServerProcess(env(journal), port);
    servers.push(first);

    const ids: number[] = [];
    for (let m = 1; m <= 3; m++) {
      const r = await api(first.baseUrl, KEY, 'POST', '/sms/message', {
        to: recipients(m, 1000),
        from: 'Acme',
        body: `batch ${m}`,
      });
      ids.push(r.body.messageID as unknown as number);
    }
    const paused = await api(first.baseUrl, KEY, 'POST', '/sms/message', {
      to: recipients(4, 10),
      from: 'Acme',
      body: 'paused',
      paused: true,
    });
    const scheduled = await api(first.baseUrl, KEY, 'POST', '/sms/message', {
      to: recipients(5, 10),
      from: 'Acme',
      body: 'later',
      send_at: new Date(Date.now() + 2000).toISOString(),
    });

    // Kill once recipients are spread over pending, submitted, sent and final statuses.
    const seen = new Set<string>();
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      for (const r of await allRecipients()) seen.add(r.status);
      if (seen.has('submitted') && seen.has('sent') && seen.has('delivered') && seen.has('pending')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect([...seen]).toEqual(expect.arrayContaining(['pending', 'submitted', 'sent', 'delivered']));
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServerProcess(env(journal), port);
    servers.push(second);
    await api(second.baseUrl, KEY, 'PATCH', `/sms/message/${paused.body.messageID}`, { paused: false });
    const messages = [...ids, paused.body.messageID, scheduled.body.messageID];
    for (const deadline = Date.now() + 90_000; ;) {
      const open = (await allRecipients()).filter((r) => !FINAL.has(r.status));
      if (open.length === 0) break;
      if (Date.now() > deadline) {
        const byStatus = open.reduce<Record<string, number>>(
          (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
          {},
        );
        const jobs = await db!.conn.db.selectFrom('outbox').selectAll().limit(5).execute();
        throw new Error(
          `${open.length} recipients never reached a final status: ${JSON.stringify(byStatus)} jobs ${JSON.stringify(jobs)}\n${second.output()}`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const id of messages) {
      const s = await api(second.baseUrl, KEY, 'GET', `/sms/message/${id}/meta`);
      expect(s.body.complete_at).not.toBeNull();
    }

    const counts = journalCounts(journal);
    const rows = await allRecipients();
    for (const r of rows.filter((x) => x.reached_carrier === 1))
      expect(counts.get(`r${r.id}`) ?? 0).toBeGreaterThanOrEqual(1);
    const duplicates = [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
    const interrupted = await db.conn.db
      .selectFrom('submit_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('outcome', '=', 'interrupted')
      .executeTakeFirstOrThrow();
    // The one allowed duplicate: the carrier accepted, the commit did not happen. Each such
    // attempt is recorded as interrupted, so duplicates can never exceed them.
    console.info(
      `[crash ${engineName}] recipients=${rows.length} duplicates=${duplicates} interrupted=${Number(interrupted.n)}`,
    );
    expect(duplicates).toBeLessThanOrEqual(Number(interrupted.n));
  }, 180_000);

  it('SIGTERM stops claiming, finishes in-flight work and exits within 10 s; nothing is sent twice', async () => {
    db = await createTestDatabase(engineName);
    dir = mkdtempSync(join(tmpdir(), 'smsgw-term-'));
    const journal = join(dir, 'journal.jsonl');
    const port = await freePort();
    // A low rate keeps most recipients queued when the signal arrives.
    // info: a slow exit then shows in the failure message how far shutdown had got.
    const first = await startServerProcess(
      { ...env(journal), SMSGW_SIM_THROUGHPUT: '300', SMSGW_LOG_LEVEL: 'info' },
      port,
    );
    servers.push(first);
    await api(first.baseUrl, KEY, 'POST', '/sms/message', {
      to: recipients(1, 2000),
      from: 'Acme',
      body: 'drain',
    });
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      if ((await allRecipients()).some((r) => r.status === 'sent' || r.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const signalled = Date.now();
    first.child.kill('SIGTERM');
    const { code } = await first.exited;
    expect(code).toBe(0);
    expect(Date.now() - signalled, first.output().slice(-4000)).toBeLessThan(10_000);
    const open = (await allRecipients()).filter((r) => r.status === 'pending' || r.status === 'submitted');
    expect(open.length).toBeGreaterThan(0);

    const second = await startServerProcess(env(journal), port);
    servers.push(second);
    for (const deadline = Date.now() + 60_000; ;) {
      if ((await allRecipients()).every((r) => FINAL.has(r.status))) break;
      if (Date.now() > deadline) throw new Error('recipients left open after the restart');
      await new Promise((r) => setTimeout(r, 200));
    }
    const counts = journalCounts(journal);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect((await allRecipients()).filter((r) => r.reached_carrier === 1).length).toBe(counts.size);
  }, 180_000);
});
