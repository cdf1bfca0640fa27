import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../server/core/errors.ts';
import { amountInCurrency, transferKind, transferNames } from '../../server/transfers/transfer-rule.ts';

describe('transferKind: by the account that receives the money', () => {
  it.each([
    ['credit_card', 'credit_card_payment'],
    ['loan', 'loan_payment'],
    ['investment', 'investment_contribution'],
    ['crypto', 'investment_contribution'],
    ['depository', 'funds_movement'],
    ['property', 'funds_movement'],
    ['other_liability', 'funds_movement'],
  ] as const)('%s -> %s', (type, kind) => expect(transferKind(type)).toBe(kind));
});

describe('transferNames', () => {
  const checking = { name: 'Checking' };
  it('names a move between accounts a transfer on both sides', () => {
    expect(transferNames(checking, { name: 'Savings', account_type: 'depository' })).toEqual({
      outflow: 'Transfer to Savings',
      inflow: 'Transfer from Checking',
    });
  });

  it('names money paid to a card or loan a payment', () => {
    expect(transferNames(checking, { name: 'Visa', account_type: 'credit_card' })).toEqual({
      outflow: 'Payment to Visa',
      inflow: 'Payment from Checking',
    });
    expect(transferNames(checking, { name: 'Mortgage', account_type: 'loan' }).outflow).toBe('Payment to Mortgage');
  });
});

describe('amountInCurrency: no more places than the currency has', () => {
  it.each([
    [12.5, 'USD', '12.5000'],
    [12.25, 'USD', '12.2500'],
    [1500, 'JPY', '1500.0000'],
    [1.125, 'KWD', '1.1250'],
  ])('%s %s -> %s', (value, currency, stored) =>
    expect(amountInCurrency(value, currency, '/transfer/amount', 'amount')).toBe(stored),
  );

  it.each([
    [12.345, 'USD', 'amount must have at most 2 decimal places for USD'],
    [1500.5, 'JPY', 'amount must have at most 0 decimal places for JPY'],
    [1.1255, 'KWD', 'amount must have at most 3 decimal places for KWD'],
    [1.12345, 'KWD', 'amount must have at most 4 decimal places'],
  ])('%s %s is refused: %s', (value, currency, message) => {
    const refusal = (() => {
      try {
        amountInCurrency(value, currency, '/transfer/amount', 'amount');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ValidationFailed);
    expect((refusal as ValidationFailed).details).toEqual([{ path: '/transfer/amount', message }]);
  });
});
