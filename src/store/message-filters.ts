import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { isFinal, type Status } from '../domain/status.js';
import { FINAL_STATUS_LIST } from './migrations/022_list_filters.js';
import type { Dialect } from './dialect.js';
import type { MessageListQuery } from './port.js';
import type { Database } from './schema.js';

/**
 * `to=` and `status=` on the outbound list (decisions §16), and how the list query reaches the
 * messages they select.
 *
 * Walking the account's messages newest first and checking each one's recipients (an index
 * probe per message) finds a page at once when matches are common, but reads the whole time
 * window when they are rare: 0.9 s at 1 M messages (SQLite) for a number that received one
 * message. Starting from the recipients index is the opposite: immediate for a few matches,
 * hopeless for half a million. SQLite has no statistics to choose between the two, so the store
 * counts the matches first, up to SPARSE_MAX (an index range read of at most that many
 * entries): at or below it, the list starts from those messages; above it, it walks.
 */
const SPARSE_MAX = 2_000;

/**
 * A condition on a message's recipients: `r` is a row of `table` (recipients, or on PostgreSQL
 * recipient_numbers for a number, which has message_id too), with the text that lets SQLite
 * use its partial index.
 */
interface Probe {
  readonly table: 'recipients' | 'recipient_numbers';
  readonly condition: RawBuilder<SqlBool>;
}

function numberProbe(dialect: Dialect, msisdn: string): Probe {
  return {
    table: dialect.numbersApart ? 'recipient_numbers' : 'recipients',
    condition: sql<SqlBool>`r.msisdn = ${msisdn}`,
  };
}

function finalStatusProbe(status: Status): Probe {
  return {
    table: 'recipients',
    condition: sql<SqlBool>`r.status = ${status} and r.status in (${sql.raw(FINAL_STATUS_LIST)})`,
  };
}

export interface RecipientFilters {
  /** Conditions on `messages` for every filter given. */
  readonly where: readonly RawBuilder<SqlBool>[];
  /**
   * True when the first condition names the few messages to start from: the query must then
   * not reach messages through an account index (`+account_id` keeps SQLite off it).
   */
  readonly sparse: boolean;
}

export async function recipientFilters(
  db: Kysely<Database>,
  dialect: Dialect,
  q: MessageListQuery,
): Promise<RecipientFilters> {
  const probes: Probe[] = [];
  if (q.recipient !== undefined) probes.push(numberProbe(dialect, q.recipient));
  const where: RawBuilder<SqlBool>[] = [];
  if (q.status !== undefined) {
    if (isFinal(q.status)) probes.push(finalStatusProbe(q.status));
    else where.push(openWithStatus(q.status));
  }
  for (const probe of probes) {
    if ((await countUpTo(db, probe, SPARSE_MAX + 1)) <= SPARSE_MAX) {
      const others = probes.filter((p) => p !== probe).map(exists);
      return {
        where: [
          sql<SqlBool>`messages.id in (select r.message_id from ${sql.table(probe.table)} r where ${probe.condition})`,
          ...others,
          ...where,
        ],
        sparse: true,
      };
    }
  }
  return { where: [...probes.map(exists), ...where], sparse: false };
}

function exists({ table, condition }: Probe): RawBuilder<SqlBool> {
  return sql<SqlBool>`exists (select 1 from ${sql.table(table)} r where r.message_id = messages.id and ${condition})`;
}

/**
 * A recipient still pending, submitted or sent belongs to a message not yet complete: few, and
 * messages_open lists them per account, so only their recipients are read.
 */
function openWithStatus(status: Status): RawBuilder<SqlBool> {
  return sql<SqlBool>`messages.complete_at is null and exists (select 1 from recipients r
    where r.message_id = messages.id and r.status = ${status})`;
}

async function countUpTo(db: Kysely<Database>, { table, condition }: Probe, limit: number): Promise<number> {
  const result = await sql<{ n: number | string }>`select count(*) as n from (
    select 1 from ${sql.table(table)} r where ${condition} limit ${limit}) matches`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}
