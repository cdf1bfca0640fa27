import { describe, expect, it } from 'vitest';
import { transferKind, transferNames } from '../../server/transfers/transfer-rule.ts';

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
