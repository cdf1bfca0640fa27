import { describe, expect, it } from 'vitest';
import { columnIndex, duplicateHeaders, normaliseLabel } from '../../../server/imports/parsing/headers.ts';

describe('normaliseLabel', () => {
  it.each([
    ['Transaction Date', 'transaction_date'],
    ['transaction-date', 'transaction_date'],
    [' TRANSACTION_DATE*', 'transaction_date'],
    ['\uFEFFDate', 'date'],
    ['\uFEFF*Date*', 'date'],
    ['Date *', 'date'],
    ['Transaction  -  Date', 'transaction_date'],
    ['Transaction__Date', 'transaction_date'],
    ['Transaction\tDate', 'transaction_date'],
    ['Transaction\u00A0Date', 'transaction_date'],
    ['-Amount-', 'amount'],
    ['Amount (EUR)', 'amount_(eur)'],
    ['Libell\u00E9', 'libellé'],
    ['Libelle\u0301', 'libellé'],
    ['ÄNDERUNG', 'änderung'],
    ['', ''],
    ['  ', ''],
    ['*', ''],
    ['\uFEFF', ''],
  ])('%j is %j', (label, normalised) => {
    expect(normaliseLabel(label)).toBe(normalised);
  });
});

describe('columnIndex', () => {
  const headers = ['\uFEFFTransaction Date', 'Amount*', 'Description', 'account-name', 'Amount'];

  it.each([
    [['transaction_date'], 0],
    [['TRANSACTION-DATE'], 0],
    [['amount'], 1],
    [['Name', 'Description'], 2],
    [['Account', 'account_name'], 3],
    [['Description', 'Amount'], 2],
    [['Missing'], undefined],
    [[], undefined],
    [[null, 'amount'], 1],
    [[undefined, 'description'], 2],
    [['', 'description'], 2],
    [['  ', '*', 'description'], 2],
  ] satisfies [(string | null | undefined)[], number | undefined][])('%j -> %s', (labels, index) => {
    expect(columnIndex(headers, labels)).toBe(index);
  });

  it('never matches a blank header with a blank label', () => {
    expect(columnIndex(['', 'Date'], ['', null, undefined])).toBeUndefined();
    expect(columnIndex(['', 'Date'], ['date'])).toBe(1);
  });

  it('prefers the configured label over an alias whatever the column order', () => {
    expect(columnIndex(['Balance', 'Amount'], ['amount', 'balance'])).toBe(1);
    expect(columnIndex(['Balance', 'Amount'], ['total', 'balance', 'amount'])).toBe(0);
  });
});

describe('duplicateHeaders', () => {
  it.each([
    [['Date', 'Amount'], []],
    [['Date', 'date'], ['date']],
    [['Transaction Date', 'transaction-date', 'TRANSACTION_DATE*'], ['transaction_date']],
    [
      ['B', 'A', 'a', 'b'],
      ['a', 'b'],
    ],
    [['', '', ' ', '*'], []],
    [['Date', '', 'Amount', ''], []],
    [['\uFEFFDate', 'Date'], ['date']],
    [[], []],
  ])('%j -> %j', (headers, duplicates) => {
    expect(duplicateHeaders(headers)).toEqual(duplicates);
  });
});
