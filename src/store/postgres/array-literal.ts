/** A character that must be escaped inside a quoted array element. */
const SPECIAL = /["\\]/;
const SPECIALS = /["\\]/g;

/**
 * The text of a PostgreSQL array ('{1,"a b",NULL}') of numbers, strings, booleans and nulls, as
 * node-postgres writes an array parameter, without its two regular expression replaces and
 * three calls per element: on PostgreSQL every list and column of rows on the hot path is an
 * array, and its escapeElement, arrayString and prepareValue were 4 % of the engine thread's
 * time in the engine bench. Numbers go unquoted; strings are quoted, and escaped only when
 * they hold a quote or a backslash.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) text += ',';
    const value = values[i];
    if (value === null || value === undefined) text += 'NULL';
    else if (typeof value === 'string')
      text += `"${SPECIAL.test(value) ? value.replace(SPECIALS, '\\$&') : value}"`;
    else if (typeof value === 'number' || typeof value === 'bigint') text += String(value);
    else if (typeof value === 'boolean') text += value ? 't' : 'f';
    else throw new TypeError(`an array parameter holds a ${typeof value}`);
  }
  return `${text}}`;
}
