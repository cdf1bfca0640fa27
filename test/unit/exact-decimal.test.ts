import { describe, expect, it } from 'vitest';
import { compareDecimals, decimalText, exactDecimal } from '../../server/core/money/exact-decimal.ts';
import { toDecimal } from '../../server/core/money/money.ts';

describe('exactDecimal', () => {
  it.each([
    [1e-7, '0.0000001'],
    [1.5e-9, '0.0000000015'],
    [1e21, '1000000000000000000000'],
    [-2.5e3, '-2500'],
    [0.1, '0.1'],
    [-0, '0'],
    ['  007.2500 ', '7.25'],
    ['-.5', '-0.5'],
    ['+3.', '3'],
  ])('%s is %s', (value, text) => {
    expect(decimalText(exactDecimal(value)!)).toBe(text);
  });

  it.each([['1e3'], ['abc'], ['.'], [''], ['1,5'], [Number.NaN], [Infinity]])('%s is not a decimal', (value) => {
    expect(exactDecimal(value)).toBeUndefined();
  });

  it('gives toDecimal the decimal a number names, exponent or not', () => {
    expect(toDecimal(1e-4)).toBe('0.0001');
    expect(toDecimal(1e12)).toBe('1000000000000.0000');
    expect(toDecimal(0.1 + 0.2)).toBe('0.3000');
  });
});

describe('compareDecimals', () => {
  it.each([
    ['-10000000000000.0001', '-10000000000000', -1],
    ['-0.5', '0', -1],
    ['0', '-0', 0],
    ['12.50', '12.5', 0],
    ['10000000000000.0001', '10000000000000', 1],
    ['-2', '-10', 1],
  ])('%s against %s is %s', (a, b, order) => {
    expect(compareDecimals(exactDecimal(a)!, exactDecimal(b)!)).toBe(order);
  });
});
