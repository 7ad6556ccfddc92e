/**
 * Ids as one PostgreSQL array literal (`{1,2,3}`), for `= any(?::bigint[])`: one text parameter, which both drivers
 * (pg and PGlite) pass the same way, whatever the number of ids.
 */
export function idArrayParam(ids: readonly (number | string)[]): string {
  return `{${ids.join(',')}}`;
}
