/**
 * The times and dates an input may name: years 1 to 9999, what ISO 8601 writes with four digits and what both
 * PostgreSQL and PGlite store and parse. JavaScript reads more (year 0, `+275760-09-13`), and a filter holding such a
 * value reached the database only to fail there; it is refused where it enters instead, naming its field.
 */
export const EARLIEST_TIME = new Date('0001-01-01T00:00:00.000Z');
export const LATEST_TIME = new Date('9999-12-31T23:59:59.999Z');

export const DATE_TIME_REASON = 'Must be an ISO 8601 date-time with a time zone, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';
export const DATE_REASON = 'Must be a date (YYYY-MM-DD) from 0001-01-01 to 9999-12-31';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instant an ISO 8601 date-time names, or undefined when it is no such text or outside the stored range. */
export function storableDateTime(text: string): Date | undefined {
  const parts = DATE_TIME.exec(text);
  if (!parts) return undefined;
  const [, year, month, day, hour, minute, second] = parts.map(Number) as number[];
  // Date accepts 2026-02-30 (as 2 March) and 24:00: a field out of its range is no date-time.
  if (!isCalendarDate(year!, month!, day!) || hour! > 23 || minute! > 59 || (second ?? 0) > 59) return undefined;
  const time = new Date(text);
  return inRange(time) ? time : undefined;
}

/** The calendar date YYYY-MM-DD, or undefined when it is no such date or outside the stored range. */
export function storableDate(text: string): string | undefined {
  const parts = DATE.exec(text);
  if (!parts) return undefined;
  const [, year, month, day] = parts.map(Number) as number[];
  return isCalendarDate(year!, month!, day!) && year! >= 1 ? text : undefined;
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function inRange(time: Date): boolean {
  const ms = time.getTime();
  return !Number.isNaN(ms) && ms >= EARLIEST_TIME.getTime() && ms <= LATEST_TIME.getTime();
}
