/** Rows per multi-row insert: at most 10 parameters each, well under either engine's limit. */
export const INSERT_CHUNK = 500;
/** Values per `in (...)` list. */
export const IN_CHUNK = 500;

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
