/**
 * Decimal places of each currency's minor unit, as ISO 4217 lists them (not as a locale displays
 * them: ICU shows HUF, IDR or COP without decimals, while ISO 4217 and the banks keep two). The
 * database holds the same table (`currency_minor_digits()`, migration 20261129000000): amounts are
 * checked against it on write and converted amounts are rounded to it.
 */

/** ISO 4217 currencies without a minor unit. */
const NO_MINOR_UNIT = [
  'BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF',
] as const; // prettier-ignore

/** ISO 4217 currencies with thousandths. */
const THOUSANDTHS = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'] as const;

const EXCEPTIONS: ReadonlyMap<string, number> = new Map([
  ...NO_MINOR_UNIT.map((code) => [code, 0] as const),
  ...THOUSANDTHS.map((code) => [code, 3] as const),
]);

/** Decimal places of a currency's minor unit: USD 2, JPY 0, KWD 3 (every other code: 2). */
export function minorDigits(currency: string): number {
  return EXCEPTIONS.get(currency) ?? 2;
}

/** The currencies whose minor unit is not hundredths, with their digits: what the SQL function spells out. */
export function minorUnitExceptions(): ReadonlyMap<string, number> {
  return EXCEPTIONS;
}
