/** Request input read as exact decimals within the bounds of their columns, or a 422 at the field. */
import { ValidationFailed, type ErrorDetail } from '../errors.ts';
import { BOUNDS, SCALE } from './bounds.ts';
import { boundMessage } from '../bound-message.ts';
import { compareDecimals, decimalText, exactDecimal } from './exact-decimal.ts';
import { minorDigits } from './minor-units.ts';

/**
 * How a decimal field of a request may be written: the one reader of every money, quantity, price
 * and rate input, whether it came as a JSON number or as a decimal string (the contract's
 * `DecimalInput`). The contract checks a number's bounds; a string's it cannot, so they are checked
 * here with the same bounds and words (server/core/bound-message.ts).
 */
export interface DecimalRule {
  /** JSON pointer of the field, for the error entry. */
  path: string;
  /** The field's name in messages. */
  label: string;
  /** Fraction digits the column keeps; more is refused, never rounded away. */
  scale: number;
  /** The largest value accepted (inclusive), as decimal text. */
  max: string;
  /** The smallest value accepted (inclusive), as decimal text: `-max` unless given or `aboveZero`. */
  min?: string;
  /** Whether the value must be above zero (the contract's `exclusiveMinimum: 0`). */
  aboveZero?: boolean;
  /** Message for text that is not a number (default: `<label> must be a number`). */
  invalid?: string;
  /** Message for a value not above zero (default: `<label> must be greater than 0`). */
  positive?: string;
  /** The part of the request `path` points into (default: the body). */
  in?: ErrorDetail['in'];
}

function refused(rule: DecimalRule, message: string): ValidationFailed {
  return new ValidationFailed([{ path: rule.path, message, ...(rule.in && { in: rule.in }) }]);
}

/** The value as an exact decimal string that fits its column, or a 422 at the field saying why not. */
export function decimalInput(value: number | string, rule: DecimalRule): string {
  const decimal = exactDecimal(value);
  if (!decimal) throw refused(rule, rule.invalid ?? `${rule.label} must be a number`);
  if (rule.aboveZero && compareDecimals(decimal, ZERO) <= 0) {
    throw refused(rule, rule.positive ?? boundMessage(rule.label, 'exclusiveMinimum', 0));
  }
  const min = rule.aboveZero ? undefined : (rule.min ?? `-${rule.max}`);
  if (min !== undefined && compareDecimals(decimal, exactDecimal(min)!) < 0) {
    throw refused(rule, boundMessage(rule.label, 'minimum', min));
  }
  if (compareDecimals(decimal, exactDecimal(rule.max)!) > 0) {
    throw refused(rule, boundMessage(rule.label, 'maximum', rule.max));
  }
  if (decimal.fraction.length > rule.scale) {
    throw refused(rule, `${rule.label} must have at most ${rule.scale} decimal places`);
  }
  return decimalText(decimal);
}

const ZERO = exactDecimal(0)!;

/**
 * Which amounts of money a field takes, as its contract states: any sign (a transaction, a
 * balance), none below zero (a fee, an amount filter) or only above zero (a transfer).
 */
export type MoneySign = 'any' | 'notNegative' | 'positive';

/** The rule of an amount of money: at most 4 decimal places, within the amount bound, of its sign. */
export function moneyRule(path: string, label = 'amount', sign: MoneySign = 'any'): DecimalRule {
  return {
    path,
    label,
    scale: SCALE.money,
    max: BOUNDS.amount,
    min: sign === 'notNegative' ? '0' : undefined,
    aboveZero: sign === 'positive',
  };
}

/** An amount of money from a request body (see {@link moneyRule}). */
export function moneyInput(value: number | string, path: string, label = 'amount', sign: MoneySign = 'any'): string {
  return decimalInput(value, moneyRule(path, label, sign));
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
export function minorUnitInput(
  value: number | string,
  currency: string,
  path: string,
  label = 'amount',
  sign: MoneySign = 'any',
): string {
  const amount = moneyInput(value, path, label, sign);
  if (exactDecimal(amount)!.fraction.length > minorDigits(currency)) {
    throw ValidationFailed.at(path, precisionMessage(label, currency));
  }
  return amount;
}

/** An exchange rate from a request: above zero, at most 10^9, at most 12 decimal places (numeric(22,12)). */
export function rateInput(value: number | string, path: string, label = 'exchange_rate'): string {
  return decimalInput(value, { path, label, scale: 12, max: '1000000000', aboveZero: true });
}
