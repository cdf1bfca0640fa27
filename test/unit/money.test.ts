import { describe, expect, it } from 'vitest';
import { answerJson, ExactInteger, JsonText } from '../../server/core/exact-json.ts';
import { formatMoney, minorDigits, negate, toDecimal, toMinorUnits } from '../../server/core/money/money.ts';
import { classify, signedAmount } from '../../server/core/money/signed-amount.ts';

describe('toDecimal', () => {
  it.each([
    [12.5, '12.5000'],
    [-3, '-3.0000'],
    ['7', '7.0000'],
    ['0.00005', '0.0001'],
    ['-0.12344', '-0.1234'],
    ['1234567.891', '1234567.8910'],
    ['.5', '0.5000'],
    [0.1 + 0.2, '0.3000'],
  ])('%s -> %s', (input, expected) => expect(toDecimal(input)).toBe(expected));

  it('refuses text that is not a number', () => {
    expect(() => toDecimal('12abc')).toThrow(RangeError);
    expect(() => toDecimal('.')).toThrow(RangeError);
  });
});

describe('minor units and formatting', () => {
  it.each([
    ['1234.5600', 'USD', 123456, '$1,234.56'],
    ['-20.0000', 'USD', -2000, '-$20.00'],
    ['0.0050', 'USD', 1, '$0.01'],
    ['-0.0050', 'USD', -1, '-$0.01'],
    ['1234.5000', 'JPY', 1235, '¥1,235'],
    ['99.9900', 'EUR', 9999, '€99.99'],
    ['1.2345', 'BHD', 1235, 'BHD\u00a01.235'],
  ])('%s %s -> %i minor units, %s', (amount, currency, minor, formatted) => {
    expect(toMinorUnits(amount, currency)).toBe(minor);
    expect(formatMoney(amount, currency)).toBe(formatted);
  });

  it.each([
    // The largest figure a double formats back to its digits, and the first that takes the decimal path.
    ['9999999999999.9900', 'USD', '999999999999999', '$9,999,999,999,999.99'],
    ['10000000000000.0000', 'USD', '1000000000000000', '$10,000,000,000,000.00'],
    ['90071992547409.9100', 'USD', '9007199254740991', '$90,071,992,547,409.91'],
    ['90071992547409.9300', 'USD', '9007199254740993', '$90,071,992,547,409.93'],
    ['999999999999999.9900', 'USD', '99999999999999999', '$999,999,999,999,999.99'],
    ['-9999999999999.9990', 'KWD', '-9999999999999999', '-KWD\u00a09,999,999,999,999.999'],
  ])('%s %s -> %s minor units written exactly, %s', (amount, currency, digits, formatted) => {
    expect(answerJson({ cents: toMinorUnits(amount, currency) })).toBe(`{"cents":${digits}}`);
    expect(formatMoney(amount, currency)).toBe(formatted);
  });

  it('keeps a number up to 2^53 and an ExactInteger past it', () => {
    expect(toMinorUnits('90071992547409.9100', 'USD')).toBe(Number.MAX_SAFE_INTEGER);
    expect(toMinorUnits('-90071992547409.9100', 'USD')).toBe(-Number.MAX_SAFE_INTEGER);
    expect(toMinorUnits('90071992547409.9200', 'USD')).toEqual(new ExactInteger('9007199254740992'));
  });

  it('writes text that looks like the marker as the text it is', () => {
    const text = { a: '\u0000json:5', b: '\\u0000json:5', c: 'json:5' };
    expect(JSON.parse(answerJson(text))).toEqual(text);
    expect(answerJson([text, toMinorUnits('90071992547409.9200', 'USD')])).toBe(
      `[${JSON.stringify(text)},9007199254740992]`,
    );
  });

  it('writes stored JSON text as it is, also after a serialisation that threw midway', () => {
    const stored = new JsonText('{"net_worth_cents": 9999999999999989, "b": [1.50]}');
    const throwing = {
      toJSON: () => {
        throw new Error('no');
      },
    };
    expect(() => answerJson([stored, throwing])).toThrow('no');
    expect(answerJson({ result: stored, cents: toMinorUnits('90071992547409.9300', 'USD') })).toBe(
      '{"result":{"net_worth_cents": 9999999999999989, "b": [1.50]},"cents":9007199254740993}',
    );
  });

  it('knows currencies without and with three decimals', () => {
    expect(minorDigits('JPY')).toBe(0);
    expect(minorDigits('KWD')).toBe(3);
  });
});

describe('signedAmount (stored amount > 0 is an outflow)', () => {
  it.each([
    [50, 'income', '-50.0000'],
    [-50, 'income', '-50.0000'],
    [50, 'inflow', '-50.0000'],
    [50, 'expense', '50.0000'],
    [-50, 'outflow', '50.0000'],
    [-50, undefined, '-50.0000'],
    [50, null, '50.0000'],
    [0, 'income', '0.0000'],
  ] as const)('%s with %s -> %s', (amount, nature, stored) => expect(signedAmount(amount, nature)).toBe(stored));

  it('classifies negative stored amounts as income and the rest as expense', () => {
    expect(classify('-0.0100')).toBe('income');
    expect(classify('0.0000')).toBe('expense');
    expect(classify('12.0000')).toBe('expense');
  });

  it('negates without producing negative zero', () => {
    expect(negate('0')).toBe('0.0000');
    expect(negate('-1.5')).toBe('1.5000');
  });
});
