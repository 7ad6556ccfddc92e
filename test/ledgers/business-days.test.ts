/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { addBusinessDays, easterSunday, isBusinessDay, osloDate, osloMidnight } from '../../src/ledgers/business-days.js';

/** Norwegian business days for the refund deduction (two business days after the refund), 2026-2030. */
test.each([
  ['2026-11-20', '2026-11-24', 'a Friday: Monday and Tuesday'],
  ['2026-04-01', '2026-04-08', 'Easter 2026: Maundy Thursday, Good Friday, Easter Monday skipped'],
  ['2026-05-15', '2026-05-19', '17 May 2026 is a Sunday'],
  ['2026-05-13', '2026-05-18', 'Ascension Day 2026-05-14'],
  ['2026-05-22', '2026-05-27', 'Whit Monday 2026-05-25'],
  ['2026-12-23', '2026-12-28', 'Christmas Eve counts, Christmas Day does not'],
  ['2027-03-24', '2027-03-31', 'Easter 2027'],
  ['2027-05-14', '2027-05-19', 'Whit Monday 2027 falls on 17 May'],
  ['2027-04-30', '2027-05-04', 'Labour Day 2027 is a Saturday'],
  ['2028-05-24', '2028-05-29', 'Ascension Day 2028-05-25'],
  ['2028-06-02', '2028-06-07', 'Whit Monday 2028-06-05'],
  ['2028-04-12', '2028-04-19', 'Easter 2028'],
  ['2029-04-28', '2029-05-02', 'a Saturday, then 1 May'],
  ['2029-12-31', '2030-01-03', "New Year's Day"],
  ['2029-03-28', '2029-04-04', 'Easter 2029'],
  ['2030-04-17', '2030-04-24', 'Easter 2030'],
  ['2030-05-29', '2030-06-03', 'Ascension Day 2030-05-30'],
  ['2030-06-07', '2030-06-12', 'Whit Monday 2030-06-10'],
  ['2030-12-24', '2030-12-30', 'Christmas Day and Boxing Day'],
])('a refund on %s is deducted on %s (%s)', (refunded, deducted) => {
  expect(addBusinessDays(refunded, 2)).toBe(deducted);
});

test.each([
  [2026, '2026-04-05'],
  [2027, '2027-03-28'],
  [2028, '2028-04-16'],
  [2029, '2029-04-01'],
  [2030, '2030-04-21'],
])('Easter Sunday %i is %s', (year, date) => {
  expect(easterSunday(year)).toBe(date);
});

test('weekends and public holidays are not business days', () => {
  expect(['2026-05-01', '2026-05-17', '2026-12-25', '2026-12-26', '2027-01-01', '2026-11-21', '2026-11-22'].map(isBusinessDay)).toEqual(
    Array(7).fill(false),
  );
  expect(['2026-11-23', '2026-12-24', '2026-12-31'].map(isBusinessDay)).toEqual([true, true, true]);
});

test('ledger dates are Oslo dates, also across daylight saving time', () => {
  expect(osloDate(new Date('2026-11-23T23:30:00Z'))).toBe('2026-11-24');
  expect(osloDate(new Date('2026-07-01T21:59:00Z'))).toBe('2026-07-01');
  expect(osloDate(new Date('2026-07-01T22:00:00Z'))).toBe('2026-07-02');
  expect(osloMidnight('2026-11-24').toISOString()).toBe('2026-11-23T23:00:00.000Z');
  expect(osloMidnight('2026-07-02').toISOString()).toBe('2026-07-01T22:00:00.000Z');
  expect(osloMidnight('2026-03-29').toISOString()).toBe('2026-03-28T23:00:00.000Z');
});
