/**
 * Amounts from CSV cells, read exactly in the import's number format. The text is taken apart
 * with regular expressions and reassembled as digits, never passed through a JS number, so
 * `0.1`, `12345678901234567890.12` and the like come back exactly as written.
 */

/**
 * How the CSV writes numbers, named by how it writes one thousand two hundred and thirty-four:
 * - `1,234.56`: decimal point `.`, optional thousands separator `,`;
 * - `1.234,56`: decimal comma `,`, optional thousands separator `.`;
 * - `1 234,56`: decimal comma `,`, optional thousands separator any Unicode space (U+0020, U+00A0, U+202F, ...);
 * - `1,234`: whole numbers only, optional thousands separator `,`.
 */
export type NumberFormat = '1,234.56' | '1.234,56' | '1 234,56' | '1,234';

/** The most digits an amount may have, integer and fraction together, as written. */
const MAX_DIGITS = 30;

/**
 * The number itself, per format: plain digits or correctly grouped digits, then an optional
 * fraction. A grouped number cannot start with 0: in `1,234.56` format `0,123` is far more likely
 * a misconfigured European `0.123` than one hundred and twenty-three.
 */
function numberPattern(thousands: string, decimal: string | undefined): RegExp {
  const fraction = decimal === undefined ? '' : `(?:${decimal}(\\d+))?`;
  return new RegExp(`^(?:(\\d+)|([1-9]\\d{0,2}(?:${thousands}\\d{3})+))?${fraction}$`, 'u');
}

const NUMBERS: Record<NumberFormat, RegExp> = {
  '1,234.56': numberPattern(',', '\\.'),
  '1.234,56': numberPattern('\\.', ','),
  '1 234,56': numberPattern('\\p{Zs}', ','),
  '1,234': numberPattern(',', undefined),
};

/** Anything but digits: what a thousands separator leaves behind in a grouped integer part. */
const NON_DIGITS = /\D/g;

/**
 * A currency marker at the start (sticky) or end of what is left: an ISO 4217-style code or a
 * currency symbol, optionally preceded by a country prefix (`US$`, `R$`, `HK$`).
 */
const CURRENCY_AT_START = /[A-Z]{3}(?![A-Za-z])|[A-Z]{0,2}\p{Sc}/uy;
const CURRENCY_AT_END = /(?:(?<![A-Za-z])[A-Z]{3}|[A-Z]{0,2}\p{Sc})$/u;

const SPACE = /\s/u;

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}

/** Minus signs: ASCII hyphen-minus and U+2212, which some banks' exports use. */
function isMinus(char: string): boolean {
  return char === '-' || char === '\u2212';
}

/** What surrounds the number: each kind may appear once, on either side, in any order. */
interface Decorations {
  negative: boolean;
  signs: number;
  openParen: boolean;
  closeParen: boolean;
  currencies: number;
}

/** Peels whitespace, a sign, `(` and a currency marker off the front; returns where the number starts. */
function peelStart(text: string, found: Decorations): number {
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (isDigit(char)) break;
    if (SPACE.test(char)) at += 1;
    else if (char === '+' || isMinus(char)) {
      found.signs += 1;
      found.negative = char !== '+';
      at += 1;
    } else if (char === '(' && !found.openParen) {
      found.openParen = true;
      at += 1;
    } else {
      CURRENCY_AT_START.lastIndex = at;
      if (found.currencies > 0 || !CURRENCY_AT_START.test(text)) break;
      found.currencies += 1;
      at = CURRENCY_AT_START.lastIndex;
    }
  }
  return at;
}

/** Peels whitespace, a trailing minus (`12.50-`), `)` and a currency marker off the back; returns where the number ends. */
function peelEnd(text: string, start: number, found: Decorations): number {
  let end = text.length;
  while (end > start) {
    const char = text[end - 1]!;
    if (isDigit(char)) break;
    if (SPACE.test(char)) end -= 1;
    else if (isMinus(char)) {
      found.signs += 1;
      found.negative = true;
      end -= 1;
    } else if (char === ')' && !found.closeParen) {
      found.closeParen = true;
      end -= 1;
    } else {
      const match = found.currencies > 0 ? null : CURRENCY_AT_END.exec(text.slice(start, end));
      if (!match) break;
      found.currencies += 1;
      end -= match[0].length;
    }
  }
  return end;
}

/**
 * The exact amount `text` writes in `format`, as a canonical decimal string (`-1234.56`, `0.5`,
 * `12`: no exponent, no leading or trailing zeros, `-0` is `0`), or undefined when it is not a
 * number in that format.
 *
 * Around the number it accepts whitespace, one sign (leading `+`/`-` or trailing `-`), or
 * parentheses for a negative (`(12.50)`), and one currency symbol or code on either side
 * (`$1,234.56`, `-€12,50`, `12.50 EUR`, `USD 12.50`), which it ignores.
 */
export function parseAmount(text: string, format: NumberFormat): string | undefined {
  const found: Decorations = { negative: false, signs: 0, openParen: false, closeParen: false, currencies: 0 };
  const start = peelStart(text, found);
  const end = peelEnd(text, start, found);
  if (start >= end || found.signs > 1 || found.openParen !== found.closeParen) return undefined;
  // `(-12)` and `(12)-` say "negative" twice: refused rather than guessed.
  if (found.openParen && found.signs > 0) return undefined;

  const match = NUMBERS[format].exec(start === 0 && end === text.length ? text : text.slice(start, end));
  if (!match) return undefined;
  const [, plain, grouped, fractionText = ''] = match;
  const integerText = plain ?? grouped?.replace(NON_DIGITS, '') ?? '';
  if (integerText === '' && fractionText === '') return undefined;
  if (integerText.length + fractionText.length > MAX_DIGITS) return undefined;

  const integer = stripLeadingZeros(integerText);
  const fraction = stripTrailingZeros(fractionText);
  const negative = (found.negative || found.openParen) && (integer !== '0' || fraction !== '');
  return `${negative ? '-' : ''}${integer}${fraction === '' ? '' : `.${fraction}`}`;
}

function stripLeadingZeros(digits: string): string {
  let at = 0;
  while (at < digits.length - 1 && digits.charCodeAt(at) === 48) at += 1;
  return digits === '' ? '0' : digits.slice(at);
}

function stripTrailingZeros(digits: string): string {
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end -= 1;
  return digits.slice(0, end);
}
