import { describe, expect, it } from 'vitest';
import { positions } from '../../server/holdings/holding.positions.ts';

const fact = (date: string, qty: string, price: string) => ({ securityId: 's', date, qty, price, currency: 'USD' });

describe('positions', () => {
  it('values a large position exactly, to the last cent', () => {
    const [row] = positions([fact('2024-01-02', '123456789.12345678', '99.9999')], [], '2024-01-02');
    expect(row).toMatchObject({ qty: '123456789.12345678', price: '99.9999', amount: '12345666566.6668' });
  });

  it('sells at the average cost, rounding only where the columns do', () => {
    const rows = positions(
      [fact('2024-01-02', '3', '10.0001'), fact('2024-01-03', '7', '20.0003'), fact('2024-01-04', '-4', '25')],
      [],
      '2024-01-05',
    );
    expect(rows.map((row) => [row.date, row.qty, row.amount, row.avgCost])).toEqual([
      ['2024-01-02', '3.00000000', '30.0003', '10.0001'],
      ['2024-01-03', '10.00000000', '200.0030', '17.0002'],
      ['2024-01-04', '6.00000000', '150.0000', '17.0002'],
      ['2024-01-05', '6.00000000', '150.0000', '17.0002'],
    ]);
  });

  it('shows a position that falls below zero by the smallest unit (the trade checks refuse it)', () => {
    const rows = positions([fact('2024-01-02', '1', '5'), fact('2024-01-03', '-1.00000001', '5')], [], '2024-01-03');
    expect(rows.at(-1)).toMatchObject({ qty: '-0.00000001', avgCost: null });
  });
});
