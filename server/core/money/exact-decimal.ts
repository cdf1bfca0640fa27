/**
 * Decimal numbers from requests, read exactly. A JSON number arrives as a double; its shortest
 * text form (`String(n)`, which may use an exponent: `1e-7`, `1e+21`) names the decimal the
 * client wrote, so that text is parsed instead of doing arithmetic on the double.
 */

/** A decimal split into sign, integer digits and fraction digits, without leading/trailing zeros. */
export interface ExactDecimal {
  negative: boolean;
  integer: string;
  fraction: string;
}

const NUMBER_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;
const DECIMAL_TEXT = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/;

/**
 * The exact decimal a JSON number or a decimal string stands for; undefined when it is not one
 * (strings take no exponent: people write `0.0000001`, machines send numbers).
 */
export function exactDecimal(value: number | string): ExactDecimal | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  const match = typeof value === 'number' ? NUMBER_TEXT.exec(String(value)) : DECIMAL_TEXT.exec(value);
  if (!match) return undefined;
  const [, sign, whole = '', part = '', exponentText] = match;
  if (whole === '' && part === '') return undefined;
  // Move the decimal point by the exponent; a double's exponent stays within a few hundred places.
  const digits = whole + part;
  const point = whole.length + Number(exponentText ?? 0);
  const padded = point < 0 ? '0'.repeat(-point) + digits : digits.padEnd(point, '0');
  const at = Math.max(point, 0);
  const integer = padded.slice(0, at).replace(/^0+/, '');
  const fraction = padded.slice(at).replace(/0+$/, '');
  return { negative: sign === '-' && (integer !== '' || fraction !== ''), integer, fraction };
}

/** The decimal as text, `-12.5`, `0.0001`. */
export function decimalText({ negative, integer, fraction }: ExactDecimal): string {
  return `${negative ? '-' : ''}${integer || '0'}${fraction ? `.${fraction}` : ''}`;
}

/** Whether |a| > |b| for decimals without leading integer zeros. */
export function magnitudeAbove(a: ExactDecimal, b: ExactDecimal): boolean {
  if (a.integer.length !== b.integer.length) return a.integer.length > b.integer.length;
  if (a.integer !== b.integer) return a.integer > b.integer;
  const width = Math.max(a.fraction.length, b.fraction.length);
  return a.fraction.padEnd(width, '0') > b.fraction.padEnd(width, '0');
}

/** Whether the magnitude of decimal text `value` is above that of `bound`. */
export function exceeds(value: string, bound: string): boolean {
  return magnitudeAbove(exactDecimal(value)!, exactDecimal(bound)!);
}

/** -1, 0 or 1 as decimal `a` is below, equal to or above `b` (signed). */
export function compareDecimals(a: ExactDecimal, b: ExactDecimal): number {
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  const order = magnitudeAbove(a, b) ? 1 : magnitudeAbove(b, a) ? -1 : 0;
  return a.negative ? -order : order;
}
