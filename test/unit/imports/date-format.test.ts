import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileDateFormat, dateWithinImportRange } from '../../../server/imports/parsing/date-format.ts';

describe('compileDateFormat: dates read', () => {
  it.each([
    ['%Y-%m-%d', '2024-03-07', '2024-03-07'],
    ['%Y-%m-%d', '2024-3-7', '2024-03-07'],
    ['%Y-%m-%d', '  2024-12-31 ', '2024-12-31'],
    ['%Y-%m-%d', '2024-02-29', '2024-02-29'],
    ['%Y-%m-%d', '2000-02-29', '2000-02-29'],
    ['%Y-%m-%d', '1970-01-01', '1970-01-01'],
    ['%m/%d/%Y', '03/07/2024', '2024-03-07'],
    ['%m/%d/%Y', '3/7/2024', '2024-03-07'],
    ['%m/%d/%Y', '12/31/1999', '1999-12-31'],
    ['%d/%m/%Y', '07/03/2024', '2024-03-07'],
    ['%d.%m.%Y', '07.03.2024', '2024-03-07'],
    ['%d.%m.%Y', '7.3.2024', '2024-03-07'],
    ['%d.%m.%Y', '31.12.2024', '2024-12-31'],
    ['%d/%m/%y', '07/03/24', '2024-03-07'],
    ['%d/%m/%y', '07/03/00', '2000-03-07'],
    ['%d/%m/%y', '31/12/68', '2068-12-31'],
    ['%d/%m/%y', '01/01/69', '1969-01-01'],
    ['%d/%m/%y', '31/12/99', '1999-12-31'],
    ['%d/%m/%y', '29/02/00', '2000-02-29'],
    ['%d/%m/%y', '29/02/24', '2024-02-29'],
    ['%-m/%-d/%Y', '3/7/2024', '2024-03-07'],
    ['%-m/%-d/%Y', '03/07/2024', '2024-03-07'],
    ['%-d.%-m.%y', '1.1.70', '1970-01-01'],
    ['%e %b %Y', ' 5 Jan 2024', '2024-01-05'],
    ['%b %e, %Y', 'Jan  5, 2024', '2024-01-05'],
    ['%b %e, %Y', 'Jan 05, 2024', '2024-01-05'],
    ['%b %e, %Y', 'Jan 25, 2024', '2024-01-25'],
    ['%b %d, %Y', 'Mar 7, 2024', '2024-03-07'],
    ['%b %d, %Y', 'mar 07, 2024', '2024-03-07'],
    ['%b %d, %Y', 'MARCH 07, 2024', '2024-03-07'],
    ['%b %d, %Y', 'Sept 30, 2024', '2024-09-30'],
    ['%b %d, %Y', 'Sep 30, 2024', '2024-09-30'],
    ['%B %d, %Y', 'September 30, 2024', '2024-09-30'],
    ['%B %d, %Y', 'sep 30, 2024', '2024-09-30'],
    ['%d-%b-%Y', '01-May-2024', '2024-05-01'],
    ['%d %B %Y', '1 december 2024', '2024-12-01'],
    ['%Y%m%d', '20240307', '2024-03-07'],
    ['%d%m%Y', '07032024', '2024-03-07'],
    ['%Y/%m/%d 100%%', '2024/03/07 100%', '2024-03-07'],
    ['Date: %Y.%m.%d (booked)', 'Date: 2024.03.07 (booked)', '2024-03-07'],
    ['[%Y]^%m$%d|*+?', '[2024]^03$07|*+?', '2024-03-07'],
    ['%Y-%m-%d', '0999-01-01', '0999-01-01'],
  ])('%s reads %j as %s', (format, text, date) => {
    expect(compileDateFormat(format)(text)).toBe(date);
  });
});

describe('compileDateFormat: dates refused', () => {
  it.each([
    ['%Y-%m-%d', ''],
    ['%Y-%m-%d', '2024-02-30'],
    ['%Y-%m-%d', '2023-02-29'],
    ['%Y-%m-%d', '1900-02-29'],
    ['%Y-%m-%d', '2100-02-29'],
    ['%Y-%m-%d', '2024-04-31'],
    ['%Y-%m-%d', '2024-06-31'],
    ['%Y-%m-%d', '2024-09-31'],
    ['%Y-%m-%d', '2024-11-31'],
    ['%Y-%m-%d', '2024-01-32'],
    ['%Y-%m-%d', '2024-13-01'],
    ['%Y-%m-%d', '2024-00-10'],
    ['%Y-%m-%d', '2024-10-00'],
    ['%Y-%m-%d', '2024-001-10'],
    ['%Y-%m-%d', '24-03-07'],
    ['%Y-%m-%d', '02024-03-07'],
    ['%Y-%m-%d', '2024/03/07'],
    ['%Y-%m-%d', '2024-03-07T00:00:00'],
    ['%Y-%m-%d', '2024-03-07 10:00'],
    ['%Y-%m-%d', '2024-03-07x'],
    ['%Y-%m-%d', 'x2024-03-07'],
    ['%Y-%m-%d', '２０２４-03-07'],
    ['%m/%d/%Y', '13/01/2024'],
    ['%m/%d/%Y', '31/12/2024'],
    ['%m/%d/%Y', '02/30/2024'],
    ['%m/%d/%Y', '2024-03-07'],
    ['%m/%d/%Y', '03/07/24'],
    ['%d/%m/%Y', '03/07/24'],
    ['%d/%m/%y', '07/03/2024'],
    ['%d/%m/%y', '29/02/23'],
    ['%d/%m/%y', '7/3/4'],
    ['%d.%m.%Y', '07/03/2024'],
    ['%d.%m.%Y', '07.03.2024.'],
    ['%d.%m.%Y', '32.01.2024'],
    ['%d.%m.%Y', '29.02.2023'],
    ['%b %d, %Y', 'Mrz 07, 2024'],
    ['%b %d, %Y', 'Ma 07, 2024'],
    ['%b %d, %Y', 'Feb 30, 2024'],
    ['%b %d, %Y', 'Mar 07 2024'],
    ['%b %d, %Y', '03 07, 2024'],
    ['%e %b %Y', '  5 Jan 2024x'],
    ['%b %e, %Y', 'Jan   5, 2024'],
    ['%Y-%m-%dT', '2024-03-07t'],
    ['%Y/%m/%d 100%%', '2024/03/07 100'],
  ])('%s refuses %j', (format, text) => {
    expect(compileDateFormat(format)(text)).toBeUndefined();
  });

  it('reads the same text differently per format, never guessing', () => {
    expect(compileDateFormat('%m/%d/%Y')('03/07/2024')).toBe('2024-03-07');
    expect(compileDateFormat('%d/%m/%Y')('03/07/2024')).toBe('2024-07-03');
    expect(compileDateFormat('%d/%m/%Y')('12/31/2024')).toBeUndefined();
  });
});

describe('compileDateFormat: formats refused', () => {
  it.each([
    ['%Y-%m-%d %H:%M', '"%H"'],
    ['%s', '"%s"'],
    ['%j/%Y', '"%j"'],
    ['%Y-%m-%', 'a lone "%" at the end'],
    ['%-Y-%m-%d', '"%-Y"'],
    ['%Y-%m-%-', '"%-"'],
    ['%D', '"%D"'],
    ['%F', '"%F"'],
    ['%Y-%m', 'it has no day'],
    ['%d.%m', 'it has no year'],
    ['', 'it has no year, month, day'],
    ['%Y-%m-%d %Y', 'names the year twice'],
    ['%d/%m/%y %Y', 'names the year twice'],
    ['%b %m %d %Y', 'names the month twice'],
    ['%d %e %m %Y', 'names the day twice'],
  ])('%j throws naming %s', (format, problem) => {
    expect(() => compileDateFormat(format)).toThrowError(problem);
    expect(() => compileDateFormat(format)).toThrowError(`Unsupported date format "${format}"`);
  });
});

describe('compileDateFormat property', () => {
  const pad = (value: number, width: number) => String(value).padStart(width, '0');
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const day = fc.date({
    min: new Date('1969-01-01T00:00:00Z'),
    max: new Date('2068-12-31T00:00:00Z'),
    noInvalidDate: true,
  });

  it('reads every real date written in each format back to the same date', () => {
    const readers = {
      iso: compileDateFormat('%Y-%m-%d'),
      us: compileDateFormat('%m/%d/%Y'),
      german: compileDateFormat('%d.%m.%Y'),
      short: compileDateFormat('%d/%m/%y'),
      named: compileDateFormat('%b %d, %Y'),
    };
    fc.assert(
      fc.property(day, (date) => {
        const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
        const iso = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
        expect(readers.iso(iso)).toBe(iso);
        expect(readers.us(`${m}/${pad(d, 2)}/${y}`)).toBe(iso);
        expect(readers.german(`${pad(d, 2)}.${m}.${y}`)).toBe(iso);
        expect(readers.named(`${MONTHS[m - 1]} ${d}, ${y}`)).toBe(iso);
        // Two digits name 1969-2068 only.
        expect(readers.short(`${pad(d, 2)}/${pad(m, 2)}/${pad(y % 100, 2)}`)).toBe(iso);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts exactly the calendar dates (checked against Date.UTC)', () => {
    const reader = compileDateFormat('%Y-%m-%d');
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 2999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (y, m, d) => {
          const real = m >= 1 && m <= 12 && d >= 1 && new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
          const text = `${y}-${pad(m, 2)}-${pad(d, 2)}`;
          expect(reader(text)).toBe(real ? text : undefined);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('dateWithinImportRange', () => {
  it.each([
    ['1970-01-01', '2024-06-15', true],
    ['1969-12-31', '2024-06-15', false],
    ['2024-06-15', '2024-06-15', true],
    ['2029-06-15', '2024-06-15', true],
    ['2029-06-16', '2024-06-15', false],
    ['2029-12-31', '2024-12-31', true],
    ['2030-01-01', '2024-12-31', false],
    // Five years after 29 February is 28 February of a common year.
    ['2029-02-28', '2024-02-29', true],
    ['2029-03-01', '2024-02-29', false],
    // ... and stays 29 February when that year is a leap year too.
    ['2028-02-29', '2023-02-28', false],
    ['2028-02-28', '2023-02-28', true],
    ['2025-02-28', '2020-02-29', true],
    ['2025-03-01', '2020-02-29', false],
    ['2000-02-29', '1995-02-28', false],
    ['2100-02-28', '2095-02-28', true],
    ['0999-01-01', '2024-06-15', false],
    ['9999-12-31', '2024-06-15', false],
    ['2024-6-15', '2024-06-15', false],
    ['', '2024-06-15', false],
  ])('%s with today %s is %s', (date, today, within) => {
    expect(dateWithinImportRange(date, today)).toBe(within);
  });

  it('clamps 29 February to 28 February also across a century (2101 is a common year)', () => {
    expect(dateWithinImportRange('2101-02-28', '2096-02-29')).toBe(true);
    expect(dateWithinImportRange('2101-03-01', '2096-02-29')).toBe(false);
  });
});
