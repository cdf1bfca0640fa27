import { describe, expect, it } from 'vitest';
import { CURRENCY_CODES, formatMoney, isKnownCurrency } from '../../server/core/money/money.ts';
import { document, requestSchemas, resolve, type Schema } from '../support/contract-limits.ts';

/** One ISO 4217 list (issue 9, item 20): the contract's CurrencyCode is what the server accepts. */
const currencyCode = (document.components.schemas as Schema).CurrencyCode;

function allThreeLetterCodes(): string[] {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return [...letters].flatMap((a) => [...letters].flatMap((b) => [...letters].map((c) => a + b + c)));
}

describe('the currency list', () => {
  it('is an enum of ISO 4217 codes in the contract', () => {
    expect(currencyCode.enum.length).toBeGreaterThan(150);
    expect(currencyCode.enum).toEqual(expect.arrayContaining(['USD', 'EUR', 'JPY', 'BHD', 'CHF']));
  });

  it('is what the server accepts, code for code', () => {
    expect(CURRENCY_CODES).toEqual(currencyCode.enum);
    const accepted = allThreeLetterCodes().filter(isKnownCurrency);
    expect(accepted).toEqual([...currencyCode.enum].sort());
    for (const junk of ['usd', 'QQQ', 'XYZ', 'US', 'USDD', '', 'XAU', 'XTS']) expect(isKnownCurrency(junk)).toBe(false);
  });

  it('is the one schema of every currency a client sends', () => {
    const fields = requestSchemas().filter(({ at }) => at.endsWith('/currency'));
    expect(fields.map(({ at }) => at.split(' ')[0]).sort()).toEqual(
      [
        'createAccount',
        'createSecurityPrices',
        'createTrade',
        'createTransaction',
        'updateTrade',
        'updateTransaction',
      ].sort(),
    );
    for (const { at, schema } of fields) expect(schema, at).toBe(resolve(currencyCode));
    // The two sides of an exchange rate, in the body and in the list's filters.
    const rate = resolve((document.components.schemas as Schema).ExchangeRatesUpsertRequest).properties.exchange_rates
      .items;
    for (const side of ['from', 'to']) expect(resolve(rate.properties[side]), side).toBe(resolve(currencyCode));
    const filters = requestSchemas().filter(({ at }) => /^listExchangeRates query (from|to)$/.test(at));
    expect(filters).toHaveLength(2);
    for (const { at, schema } of filters) expect(schema, at).toBe(resolve(currencyCode));
  });

  it('formats an amount in every code', () => {
    for (const code of currencyCode.enum as string[]) expect(formatMoney('1234.5000', code)).toMatch(/\d/);
  });
});
