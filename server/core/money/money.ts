import currencyCodes from '../../../openapi/components/schemas/CurrencyCode.json' with { type: 'json' };

/**
 * Money rules, defined once. Amounts travel as decimal strings (numeric(19,4) in PostgreSQL),
 * never as floats; minor units are integers.
 */

import { jsonInteger, type JsonInteger } from '../exact-json.ts';
import { decimalText, exactDecimal } from './exact-decimal.ts';
import { minorDigits } from './minor-units.ts';

export { minorDigits };

const SCALE = 4; // decimal places stored
const formatters = new Map<string, Intl.NumberFormat>();

/** The display format of a currency, showing exactly its ISO 4217 minor unit (whatever the locale data says). */
function formatter(currency: string): Intl.NumberFormat {
  let format = formatters.get(currency);
  if (!format) {
    const digits = minorDigits(currency);
    format = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formatters.set(currency, format);
  }
  return format;
}

/**
 * The ISO 4217 codes the service accepts. The one list is the contract's (CurrencyCode.json, the
 * `enum` every currency field refers to), read here, so that the server's check and the contract
 * cannot disagree; it no longer depends on the ICU data of the Node.js build.
 */
export const CURRENCY_CODES: readonly string[] = currencyCodes.enum;
const KNOWN_CURRENCIES: ReadonlySet<string> = new Set(CURRENCY_CODES);

/** Whether `code` is one of the ISO 4217 codes the service accepts. */
export function isKnownCurrency(code: string): boolean {
  return KNOWN_CURRENCIES.has(code);
}

/**
 * A JSON number or decimal string as the stored decimal string with 4 places ("12.5" -> "12.5000").
 * A number is read from its shortest text form, the decimal the client wrote (toFixed would round
 * the binary value instead, and writes large values with an exponent).
 */
export function toDecimal(value: number | string): string {
  if (typeof value === 'number') {
    const exact = exactDecimal(value);
    if (!exact) throw new RangeError(`${value} is not a finite number`);
    value = decimalText(exact);
  }
  const match = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(value);
  if (!match || (match[2] === '' && !match[3])) throw new RangeError(`"${value}" is not a decimal number`);
  const fraction = (match[3] ?? '').padEnd(SCALE, '0');
  // Beyond 4 places the stored value is rounded half away from zero, as PostgreSQL does.
  const scaled =
    BigInt(`${match[2] || '0'}${fraction.slice(0, SCALE)}`) + (Number(fraction[SCALE] ?? '0') >= 5 ? 1n : 0n);
  return fromScaled(match[1] === '-' ? -scaled : scaled);
}

function fromScaled(scaled: bigint): string {
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(SCALE + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -SCALE)}.${digits.slice(-SCALE)}`;
}

function scaledOf(decimal: string): bigint {
  return BigInt(toDecimal(decimal).replace('.', ''));
}

/** Signed minor units of a decimal amount, rounded half away from zero ("-12.345" USD -> -1235n). */
export function minorUnits(amount: string, currency: string): bigint {
  const scaled = scaledOf(amount);
  const divisor = 10n ** BigInt(SCALE - minorDigits(currency));
  const rounded = (magnitude(scaled) + divisor / 2n) / divisor;
  return scaled < 0n ? -rounded : rounded;
}

/**
 * Signed integer minor units of a decimal amount, rounded half away from zero ("-12.345" USD ->
 * -1235), for an answer: past 2^53 an ExactInteger, which answers write as its digits
 * (docs/money.md#minor-units).
 */
export function toMinorUnits(amount: string, currency: string): JsonInteger {
  return jsonInteger(minorUnits(amount, currency));
}

/** Below this many minor units, a double divided by 10^digits formats back to the same digits. */
const FORMATS_AS_DOUBLE = 10n ** 15n;

/** Display form in the currency: "$1,234.56", "-$20.00", "¥1,235". */
export function formatMoney(amount: string, currency: string): string {
  const minor = minorUnits(amount, currency);
  const digits = minorDigits(currency);
  if (minor < FORMATS_AS_DOUBLE && minor > -FORMATS_AS_DOUBLE) {
    return formatter(currency).format(Number(minor) / 10 ** digits);
  }
  // Beyond 15 digits a double is a neighbour: Intl formats a decimal string exactly (slower).
  const text = magnitude(minor).toString();
  const decimal = digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
  return formatter(currency).format(`${minor < 0n ? '-' : ''}${decimal}` as `${number}`);
}

/** The absolute value of an integer. */
export function magnitude(value: bigint): bigint {
  return value < 0n ? -value : value;
}

/** The absolute value of a decimal string. */
export function absolute(amount: string): string {
  return amount.startsWith('-') ? amount.slice(1) : amount;
}

/** The negation of a decimal string. */
export function negate(amount: string): string {
  const decimal = toDecimal(amount);
  if (/^-?0\.0+$/.test(decimal)) return absolute(decimal);
  return decimal.startsWith('-') ? decimal.slice(1) : `-${decimal}`;
}

/** Whether a decimal string is below zero. */
export function isNegative(amount: string): boolean {
  return scaledOf(amount) < 0n;
}

/** A decimal string without trailing fractional zeros, as people write quantities: "10.00000000" -> "10". */
export function trimDecimal(decimal: string): string {
  return decimal.includes('.') ? decimal.replace(/\.?0+$/, '') : decimal;
}
