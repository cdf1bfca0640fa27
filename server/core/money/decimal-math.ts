/**
 * Exact arithmetic on decimal text with integers: sums at the stored scale of money (4 places),
 * and products (quantity x price x exchange rate) rounded once, half to even, to a currency's
 * minor unit, as the database's round_half_even() does (migration 20261129000000).
 */

/** Money's stored scale: numeric(19,4). */
export const MONEY_SCALE = 4;

/** Decimal text as an integer count of 10^-scale units; the text must have at most `scale` places. */
export function toUnits(decimal: string, scale = MONEY_SCALE): bigint {
  const { units, places } = parse(decimal);
  if (places > scale) throw new RangeError(`${decimal} has more than ${scale} decimal places`);
  return units * 10n ** BigInt(scale - places);
}

/** An integer count of 10^-scale units as decimal text with `scale` places. */
export function fromUnits(units: bigint, scale = MONEY_SCALE): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits}`;
}

function parse(decimal: string): { units: bigint; places: number } {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(decimal.trim());
  if (!match || (match[2] === '' && !match[3])) throw new RangeError(`"${decimal}" is not a decimal number`);
  const fraction = match[3] ?? '';
  const units = BigInt(`${match[2] || '0'}${fraction}`);
  return { units: match[1] === '-' ? -units : units, places: fraction.length };
}

/** numerator / denominator (denominator > 0) rounded half to even. */
function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator; // truncated toward zero
  const remainder = numerator - quotient * denominator;
  const twice = 2n * (remainder < 0n ? -remainder : remainder);
  if (twice < denominator || (twice === denominator && quotient % 2n === 0n)) return quotient;
  return quotient + (numerator < 0n ? -1n : 1n);
}

/**
 * The product of decimal factors in 10^-scale units, rounded half to even to `places` decimal
 * places (so a multiple of 10^(scale - places) units).
 */
export function productUnits(factors: readonly string[], places: number, scale = MONEY_SCALE): bigint {
  let units = 1n;
  let exponent = 0;
  for (const factor of factors) {
    const parsed = parse(factor);
    units *= parsed.units;
    exponent += parsed.places;
  }
  const rounded =
    exponent > places
      ? divideHalfEven(units, 10n ** BigInt(exponent - places))
      : units * 10n ** BigInt(places - exponent);
  return rounded * 10n ** BigInt(scale - places);
}
