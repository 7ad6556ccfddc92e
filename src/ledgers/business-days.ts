/**
 * Ledger dates: calendar dates in Europe/Oslo (`YYYY-MM-DD`), and Norwegian business days (no weekend, no public
 * holiday: New Year's Day, Maundy Thursday, Good Friday, Easter Sunday and Monday, 1 May, 17 May, Ascension Day,
 * Whit Sunday and Monday, Christmas Day and Boxing Day).
 */
const OSLO = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric', month: '2-digit', day: '2-digit' });
const DAY_MS = 86_400_000;

/** The calendar date in Oslo at the instant. */
export function osloDate(instant: Date | number): string {
  return OSLO.format(typeof instant === 'number' ? new Date(instant) : instant);
}

/** The date `days` calendar days after `date` (negative: before). */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The instant Oslo's day `date` begins (its midnight, 23:00 or 22:00 UTC the day before). */
export function osloMidnight(date: string): Date {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  for (const offsetHours of [1, 2]) {
    const candidate = utcMidnight - offsetHours * 3_600_000;
    if (osloDate(candidate) === date && osloDate(candidate - 1) !== date) return new Date(candidate);
  }
  throw new Error(`No Oslo midnight found for ${date}`);
}

/** Easter Sunday of the year (the Gregorian computus, Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const holidayCache = new Map<number, Set<string>>();

/** Norway's public holidays of the year. */
export function norwegianHolidays(year: number): Set<string> {
  const cached = holidayCache.get(year);
  if (cached) return cached;
  const easter = easterSunday(year);
  const holidays = new Set([
    `${year}-01-01`,
    addDays(easter, -3), // Maundy Thursday
    addDays(easter, -2), // Good Friday
    easter,
    addDays(easter, 1), // Easter Monday
    `${year}-05-01`,
    `${year}-05-17`,
    addDays(easter, 39), // Ascension Day
    addDays(easter, 49), // Whit Sunday
    addDays(easter, 50), // Whit Monday
    `${year}-12-25`,
    `${year}-12-26`,
  ]);
  holidayCache.set(year, holidays);
  return holidays;
}

export function isBusinessDay(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !norwegianHolidays(Number(date.slice(0, 4))).has(date);
}

/** The `count`-th Norwegian business day after `date` (the date itself never counts). */
export function addBusinessDays(date: string, count: number): string {
  let current = date;
  let left = count;
  while (left > 0) {
    current = addDays(current, 1);
    if (isBusinessDay(current)) left -= 1;
  }
  return current;
}
