import { sql, type SelectQueryBuilder } from 'kysely';
import type { SortKey } from './port.js';

export interface ListSort<F extends string> {
  /** Column of each sortable field. */
  readonly columns: Readonly<Record<F, string>>;
  /** Fields whose column may be null. */
  readonly nullable: ReadonlySet<F>;
}

/**
 * One page of a list endpoint (decisions §11), the same for outbound and inbound: the sort keys,
 * ties broken by id descending, and one row more than the limit so `more_results` is exact.
 */
export async function listPage<DB, TB extends keyof DB, O, F extends string>(
  query: SelectQueryBuilder<DB, TB, O>,
  sort: ListSort<F>,
  keys: readonly SortKey<F>[],
  limit: number,
  offset: number,
): Promise<{ rows: O[]; more: boolean }> {
  for (const key of keys) {
    // Absent values sort last both ways, the same on SQLite and PostgreSQL. Only nullable
    // columns say so: NULLS LAST on a NOT NULL column stops PostgreSQL using its index
    // backwards (38 ms → 1 ms for the default list at 1 M messages).
    const nullable = sort.nullable.has(key.field);
    query = query.orderBy(sql.ref(sort.columns[key.field]), (ob) => {
      const ordered = key.descending ? ob.desc() : ob.asc();
      return nullable ? ordered.nullsLast() : ordered;
    });
  }
  if (!keys.some((k) => sort.columns[k.field] === 'id')) query = query.orderBy(sql.ref('id'), 'desc');
  const rows = await query
    .limit(limit + 1)
    .offset(offset)
    .execute();
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}
