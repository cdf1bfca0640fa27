import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAmount, type NumberFormat } from '../../../server/imports/parsing/number-format.ts';

const NBSP = '\u00A0';
const NARROW_NBSP = '\u202F';
const THIN_SPACE = '\u2009';

describe('parseAmount in 1,234.56', () => {
  it.each([
    ['1,234.56', '1234.56'],
    ['1234.56', '1234.56'],
    ['-1,234.56', '-1234.56'],
    ['+1,234.56', '1234.56'],
    ['  12.50  ', '12.5'],
    ['12.50-', '-12.5'],
    ['(12.50)', '-12.5'],
    ['( 12.50 )', '-12.5'],
    ['$1,234.56', '1234.56'],
    ['-$1,234.56', '-1234.56'],
    ['$-1,234.56', '-1234.56'],
    ['($1,234.56)', '-1234.56'],
    ['$(1,234.56)', '-1234.56'],
    ['12.50 EUR', '12.5'],
    ['USD 12.50', '12.5'],
    ['USD -12.50', '-12.5'],
    ['-12.50 USD', '-12.5'],
    ['12.50- USD', '-12.5'],
    ['US$ 5', '5'],
    ['£0.99', '0.99'],
    ['¥1,000', '1000'],
    ['₹12.00', '12'],
    ['12€', '12'],
    ['0.5', '0.5'],
    ['.5', '0.5'],
    ['-.5', '-0.5'],
    ['12', '12'],
    ['0012.500', '12.5'],
    ['0', '0'],
    ['0.000', '0'],
    ['-0', '0'],
    ['-0.00', '0'],
    ['(0.00)', '0'],
    ['0.00-', '0'],
    ['1,000,000', '1000000'],
    ['999,999,999.999', '999999999.999'],
    ['1.234', '1.234'],
    ['0.1', '0.1'],
    ['\u2212' + '7.25', '-7.25'],
    [`${NBSP}12.5${NBSP}`, '12.5'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['12345678901234567890.1234567890', '12345678901234567890.123456789'],
    [`0.${'0'.repeat(28)}1`, `0.${'0'.repeat(28)}1`],
    [`.${'0'.repeat(29)}1`, `0.${'0'.repeat(29)}1`],
    ['9007199254740993', '9007199254740993'],
  ])('%j is %s', (text, amount) => {
    expect(parseAmount(text, '1,234.56')).toBe(amount);
  });

  it.each([
    [''],
    ['   '],
    ['-'],
    ['$'],
    ['EUR'],
    ['()'],
    ['.'],
    ['12.'],
    ['1,23.45'],
    ['12,50'],
    ['1,2345.00'],
    ['1,234,56'],
    ['1234,567.00'],
    [',123'],
    ['0,123.45'],
    ['1.234,56'],
    ['1.234.567'],
    ['1 234.56'],
    [`1${NBSP}234.56`],
    ['1e3'],
    ['1E-3'],
    ['0x10'],
    ['Infinity'],
    ['NaN'],
    ['12abc'],
    ['abc'],
    ['--12'],
    ['+-12'],
    ['-12-'],
    ['(-12)'],
    ['(12)-'],
    ['(12'],
    ['12)'],
    ['((12))'],
    ['$12 USD'],
    ['$$12'],
    ['EURO 12'],
    ['12 eur'],
    ['12 EURO'],
    ['1 2'],
    ['12.5.0'],
    ['١٢'],
    ['1234567890123456789012345678901'],
    [`0.${'0'.repeat(29)}1`],
    [`00${'9'.repeat(29)}`],
    ['1'.repeat(10_000)],
  ])('%j is not an amount', (text) => {
    expect(parseAmount(text, '1,234.56')).toBeUndefined();
  });
});

describe('parseAmount in 1.234,56', () => {
  it.each([
    ['1.234,56', '1234.56'],
    ['1234,56', '1234.56'],
    ['-€12,50', '-12.5'],
    ['€-12,50', '-12.5'],
    ['12,50 €', '12.5'],
    ['12,50 EUR', '12.5'],
    ['EUR 12,50', '12.5'],
    ['12,50-', '-12.5'],
    ['(12,50)', '-12.5'],
    ['1.000.000', '1000000'],
    ['1.234', '1234'],
    [',5', '0.5'],
    ['-0,00', '0'],
    ['0,10', '0.1'],
    ['12', '12'],
    [' CHF 1.234,5 ', '1234.5'],
  ])('%j is %s', (text, amount) => {
    expect(parseAmount(text, '1.234,56')).toBe(amount);
  });

  it.each([
    ['1,234.56'],
    ['12.50'],
    ['1.23,45'],
    ['1.2345'],
    ['1234.567,00'],
    ['0.123,45'],
    ['1 234,56'],
    ['12,'],
    ['12,5,0'],
    [''],
  ])('%j is not an amount', (text) => {
    expect(parseAmount(text, '1.234,56')).toBeUndefined();
  });
});

describe('parseAmount in 1 234,56', () => {
  it.each([
    ['1 234,56', '1234.56'],
    [`1${NBSP}234,56`, '1234.56'],
    [`1${NARROW_NBSP}234,56`, '1234.56'],
    [`1${THIN_SPACE}234${THIN_SPACE}567,8`, '1234567.8'],
    ['1234,56', '1234.56'],
    [`-1${NBSP}234,56${NBSP}€`, '-1234.56'],
    ['12 345 678', '12345678'],
    ['12,50 EUR', '12.5'],
    [`1${NARROW_NBSP}234,56 SEK`, '1234.56'],
    ['(1 234,56)', '-1234.56'],
    ['1 234,56-', '-1234.56'],
    ['-0,0', '0'],
  ])('%j is %s', (text, amount) => {
    expect(parseAmount(text, '1 234,56')).toBe(amount);
  });

  it.each([
    ['1.234,56'],
    ['1,234.56'],
    ['12.50'],
    ['1  234,56'],
    ['1 23,45'],
    ['1 2345,00'],
    ['0 123,45'],
    ['1\t234,56'],
    ['1\n234,56'],
    ['1 234 ,56'],
    [''],
  ])('%j is not an amount', (text) => {
    expect(parseAmount(text, '1 234,56')).toBeUndefined();
  });
});

describe('parseAmount in 1,234', () => {
  it.each([
    ['1,234', '1234'],
    ['1234', '1234'],
    ['-1,234', '-1234'],
    ['(1,234)', '-1234'],
    ['1,234-', '-1234'],
    ['¥1,234,567', '1234567'],
    ['1,234 JPY', '1234'],
    ['-0', '0'],
    ['007', '7'],
  ])('%j is %s', (text, amount) => {
    expect(parseAmount(text, '1,234')).toBe(amount);
  });

  it.each([['12.50'], ['1,234.56'], ['1.234'], ['1.234,56'], ['12,50'], ['1 234'], ['.5'], ['12.']])(
    '%j is not an amount (no decimals in this format)',
    (text) => {
      expect(parseAmount(text, '1,234')).toBeUndefined();
    },
  );
});

describe('parseAmount: the same text in each format', () => {
  it.each([
    ['1,234.56', { '1,234.56': '1234.56', '1.234,56': undefined, '1 234,56': undefined, '1,234': undefined }],
    ['1.234,56', { '1,234.56': undefined, '1.234,56': '1234.56', '1 234,56': undefined, '1,234': undefined }],
    ['1 234,56', { '1,234.56': undefined, '1.234,56': undefined, '1 234,56': '1234.56', '1,234': undefined }],
    ['1,234', { '1,234.56': '1234', '1.234,56': '1.234', '1 234,56': '1.234', '1,234': '1234' }],
    ['1.234', { '1,234.56': '1.234', '1.234,56': '1234', '1 234,56': undefined, '1,234': undefined }],
    ['12,5', { '1,234.56': undefined, '1.234,56': '12.5', '1 234,56': '12.5', '1,234': undefined }],
    ['1234', { '1,234.56': '1234', '1.234,56': '1234', '1 234,56': '1234', '1,234': '1234' }],
  ] satisfies [string, Record<NumberFormat, string | undefined>][])('%j', (text, expected) => {
    for (const [format, amount] of Object.entries(expected)) {
      expect(parseAmount(text, format as NumberFormat), format).toBe(amount);
    }
  });
});

// ---- Property: any decimal, written the way a bank might in each format, reads back exactly ----

interface Decimal {
  negative: boolean;
  /** Digits before the point, without leading zeros (`0` for zero). */
  integer: string;
  /** Digits after the point, possibly with trailing zeros. */
  fraction: string;
}

/** The canonical text of a decimal, computed with BigInt (independent of the parser's string work). */
function canonical({ negative, integer, fraction }: Decimal): string {
  const scale = fraction.length;
  const units = BigInt(integer + fraction);
  if (units === 0n) return '0';
  const digits = units.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const part = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${part ? `.${part}` : ''}`;
}

const SEPARATORS: Record<NumberFormat, { thousands: string[]; decimal: string | undefined }> = {
  '1,234.56': { thousands: [','], decimal: '.' },
  '1.234,56': { thousands: ['.'], decimal: ',' },
  '1 234,56': { thousands: [' ', NBSP, NARROW_NBSP, THIN_SPACE], decimal: ',' },
  '1,234': { thousands: [','], decimal: undefined },
};

interface Writing {
  grouped: boolean;
  thousands: number;
  leadingZeros: number;
  omitZeroInteger: boolean;
  sign: 'leading' | 'trailing' | 'parentheses' | 'unicode';
  plus: boolean;
  currency: string;
  currencyBefore: boolean;
  padding: string;
}

function group(integer: string, separator: string): string {
  let out = '';
  for (let end = integer.length; end > 0; end -= 3) {
    out = integer.slice(Math.max(0, end - 3), end) + (out ? separator + out : '');
  }
  return out;
}

/** Writes `value` in `format` the way `how` says. */
function write(value: Decimal, format: NumberFormat, how: Writing): string {
  const { thousands, decimal } = SEPARATORS[format];
  let integer = how.grouped ? group(value.integer, thousands[how.thousands % thousands.length]!) : value.integer;
  if (!how.grouped) integer = '0'.repeat(how.leadingZeros) + integer;
  if (how.omitZeroInteger && value.integer === '0' && value.fraction !== '') integer = '';
  let text = decimal !== undefined && value.fraction !== '' ? `${integer}${decimal}${value.fraction}` : integer;
  if (how.currency) text = how.currencyBefore ? `${how.currency}${text}` : `${text} ${how.currency}`;
  if (value.negative) {
    if (how.sign === 'leading') text = `-${text}`;
    else if (how.sign === 'trailing') text = `${text}-`;
    else if (how.sign === 'unicode') text = `\u2212${text}`;
    else text = `(${text})`;
  } else if (how.plus) text = `+${text}`;
  return `${how.padding}${text}${how.padding}`;
}

const decimalFor = (format: NumberFormat) =>
  fc
    .record({
      negative: fc.boolean(),
      integer: fc.oneof(
        fc.constant('0'),
        fc.stringMatching(/^[1-9][0-9]{0,20}$/),
        fc.bigInt({ min: 1n, max: 10n ** 6n }).map(String),
      ),
      fraction: format === '1,234' ? fc.constant('') : fc.stringMatching(/^[0-9]{0,9}$/),
    })
    .filter((value) => value.integer.length + value.fraction.length <= 30);

const writing: fc.Arbitrary<Writing> = fc.record({
  grouped: fc.boolean(),
  thousands: fc.nat(3),
  leadingZeros: fc.nat(2),
  omitZeroInteger: fc.boolean(),
  sign: fc.constantFrom('leading', 'trailing', 'parentheses', 'unicode'),
  plus: fc.boolean(),
  currency: fc.constantFrom('', '$', '€', '£', 'US$', 'EUR', 'USD', 'CHF'),
  currencyBefore: fc.boolean(),
  padding: fc.constantFrom('', ' ', NBSP, '\t'),
});

describe('parseAmount property', () => {
  it.each(['1,234.56', '1.234,56', '1 234,56', '1,234'] as const)(
    'reads any decimal written in %s exactly',
    (format) => {
      fc.assert(
        fc.property(decimalFor(format), writing, (value, how) => {
          const text = write(value, format, how);
          const leadingZerosFit = value.integer.length + value.fraction.length + how.leadingZeros <= 30;
          fc.pre(how.grouped || leadingZerosFit);
          expect(parseAmount(text, format), text).toBe(canonical(value));
        }),
        { numRuns: 2000 },
      );
    },
  );

  it('never throws, and what it returns is canonical', () => {
    const formats = fc.constantFrom<NumberFormat>('1,234.56', '1.234,56', '1 234,56', '1,234');
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789.,- ()$€EUR+\u00A0\u2212'), maxLength: 24 }),
        formats,
        (text, format) => {
          const amount = parseAmount(text, format);
          if (amount !== undefined) expect(amount).toMatch(/^(0|-?(0|[1-9]\d*)(\.\d*[1-9])?)$/);
          if (amount !== undefined) expect(amount).not.toBe('-0');
        },
      ),
      { numRuns: 5000 },
    );
  });
});
