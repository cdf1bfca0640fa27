import { describe, expect, it } from 'vitest';
import { dailyBalances, daysBetween } from '../../server/balances/daily-balances.ts';
import { fromUnits, productUnits, toUnits } from '../../server/core/money/decimal-math.ts';

const units = (decimal: string) => toUnits(decimal);

describe('dailyBalances', () => {
  const days = daysBetween('2024-01-30', '2024-02-02');

  it('moves an asset by its flows and a liability the other way, and resets on a valuation', () => {
    const flows = new Map([
      [
        '2024-01-30',
        { inflows: units('100'), outflows: units('30.5'), income: 0n, expenses: 0n, valuation: null, missing: [] },
      ],
      [
        '2024-02-01',
        { inflows: units('5'), outflows: 0n, income: 0n, expenses: 0n, valuation: units('1000'), missing: [] },
      ],
    ]);
    const asset = dailyBalances(days, { cash: units('10'), missing: [] }, flows, [], false);
    expect(asset.map((day) => [day.date, fromUnits(day.balance)])).toEqual([
      ['2024-01-30', '79.5000'],
      ['2024-01-31', '79.5000'],
      ['2024-02-01', '1000.0000'], // the valuation sets the day; its flows are in it
      ['2024-02-02', '1000.0000'],
    ]);
    const liability = dailyBalances(days, { cash: units('10'), missing: [] }, flows, [], true);
    expect(fromUnits(liability[0]!.balance)).toBe('-59.5000');
  });

  it('carries a flow missing its rate until a valuation, and a holding missing its rate for its day only', () => {
    const flows = new Map([
      [
        '2024-01-31',
        { inflows: 0n, outflows: 0n, income: 0n, expenses: 0n, valuation: null, missing: [{ from: 'EUR', to: 'USD' }] },
      ],
      ['2024-02-02', { inflows: 0n, outflows: 0n, income: 0n, expenses: 0n, valuation: units('5'), missing: [] }],
    ]);
    const holdings = [
      { value: 0n, missing: [{ from: 'JPY', to: 'USD' }] },
      { value: 0n, missing: [] },
      { value: 0n, missing: [] },
      { value: 0n, missing: [] },
    ];
    const result = dailyBalances(days, { cash: 0n, missing: [] }, flows, holdings, false);
    expect(result.map((day) => [day.date, day.complete, day.missing.map((m) => `${m.from}@${m.date}`)])).toEqual([
      ['2024-01-30', false, ['JPY@2024-01-30']],
      ['2024-01-31', false, ['EUR@2024-01-31']],
      ['2024-02-01', false, ['EUR@2024-01-31']],
      ['2024-02-02', true, []],
    ]);
  });

  it('lists the days of a range across a month and a leap day', () => {
    expect(daysBetween('2024-02-28', '2024-03-01')).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(daysBetween('2024-03-02', '2024-03-01')).toEqual([]);
  });
});

describe('productUnits', () => {
  it('rounds a product once, half to even, to the places asked', () => {
    expect(fromUnits(productUnits(['0.15', '1.1'], 2))).toBe('0.1600'); // 0.165 -> even 0.16
    expect(fromUnits(productUnits(['0.25', '1.1'], 2))).toBe('0.2800'); // 0.275 -> 0.28
    expect(fromUnits(productUnits(['-0.15', '1.1'], 2))).toBe('-0.1600');
    expect(fromUnits(productUnits(['3000', '0.00666666666666666667'], 0))).toBe('20.0000');
    expect(fromUnits(productUnits(['2.5'], 0))).toBe('2.0000');
  });
});
