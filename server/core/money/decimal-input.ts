/** Request input read as exact decimals within the bounds of their columns, or a 422 at the field. */
import { ValidationFailed } from '../errors.ts';
import { BOUNDS, SCALE } from './bounds.ts';
import { decimalText, exactDecimal, magnitudeAbove } from './exact-decimal.ts';
import { minorDigits } from './minor-units.ts';

/** How a field of a request body may be written. */
export interface DecimalRule {
  /** JSON pointer of the field, for the error entry. */
  path: string;
  /** The field's name in messages. */
  label: string;
  /** Fraction digits the column keeps; more is refused, never rounded away. */
  scale: number;
  /** The largest magnitude accepted (inclusive), as decimal text. */
  max: string;
  /** Message for text that is not a number (default: `<label> must be a number`). */
  invalid?: string;
  /** Whether the value must be above zero, and the message when it is not. */
  positive?: string;
}

/** The value as an exact decimal string that fits its column, or a 422 at the field saying why not. */
export function decimalInput(value: number | string, rule: DecimalRule): string {
  const decimal = exactDecimal(value);
  if (!decimal) throw ValidationFailed.at(rule.path, rule.invalid ?? `${rule.label} must be a number`);
  const zero = decimal.integer === '' && decimal.fraction === '';
  if (rule.positive && (decimal.negative || zero)) throw ValidationFailed.at(rule.path, rule.positive);
  if (decimal.fraction.length > rule.scale) {
    throw ValidationFailed.at(rule.path, `${rule.label} must have at most ${rule.scale} decimal places`);
  }
  if (magnitudeAbove(decimal, exactDecimal(rule.max)!)) {
    throw ValidationFailed.at(rule.path, `${rule.label} must be at most ${rule.max}`);
  }
  return decimalText(decimal);
}

/** An amount of money from a request: at most 4 decimal places, within the amount bound. */
export function moneyInput(value: number | string, path: string, label = 'amount'): string {
  return decimalInput(value, { path, label, scale: SCALE.money, max: BOUNDS.amount });
}

/** The message for an amount finer than its currency's minor unit (ISO 4217). */
export function precisionMessage(label: string, currency: string): string {
  const places = minorDigits(currency);
  return places === 0
    ? `${label} must be a whole number: ${currency} has no minor unit`
    : `${label} must have at most ${places} decimal places: the minor unit of ${currency}`;
}

/**
 * An amount of money in `currency` from a request: within the amount bound and no finer than the
 * currency's minor unit (USD 2 places, JPY 0, KWD 3). Rounding it would lose or invent money.
 */
export function minorUnitInput(value: number | string, currency: string, path: string, label = 'amount'): string {
  const amount = moneyInput(value, path, label);
  if (exactDecimal(amount)!.fraction.length > minorDigits(currency)) {
    throw ValidationFailed.at(path, precisionMessage(label, currency));
  }
  return amount;
}

/** An exchange rate from a request: above zero, at most 10^9, at most 12 decimal places (numeric(22,12)). */
export function rateInput(value: number | string, path: string, label = 'exchange_rate'): string {
  return decimalInput(value, { path, label, scale: 12, max: '1000000000', positive: `${label} must be above zero` });
}
