/**
 * Reads a format string the way Python's `%` operator does with a tuple of arguments (the service
 * builds `!Format` as `format % tuple(args)`): `%%` is a literal percent, every other `%` starts a
 * conversion `%[flags][width][.precision][length]type`, and a `*` width or precision takes an
 * argument of its own. Linear in the length of the string.
 */

/** One conversion as written, e.g. `%s`, `%05.2f`, `%*d`. */
export interface Placeholder {
  text: string;
  /** The arguments it takes: 1, plus 1 for each `*`. */
  takes: number;
}

export type FormatReading =
  | { ok: true; placeholders: Placeholder[]; argumentCount: number }
  | {
      ok: false;
      /**
       * unsupported: a conversion type Python does not know (ValueError);
       * incomplete: a `%` (with flags) at the end of the string (ValueError);
       * mapping-key: `%(name)s`, which needs a mapping, not a tuple (TypeError).
       */
      reason: 'unsupported' | 'incomplete' | 'mapping-key';
      /** The conversion as far as it was read, e.g. `%y`, `%5%`, `%(name)`. */
      text: string;
    };

const flags = '-+ #0';
const lengthModifiers = 'hlL';
const conversionTypes = 'diouxXeEfFgGcrsa';

const isDigit = (char: string | undefined): boolean => char !== undefined && char >= '0' && char <= '9';

export function readFormat(format: string): FormatReading {
  const placeholders: Placeholder[] = [];
  let argumentCount = 0;
  let at = format.indexOf('%');
  while (at >= 0) {
    const start = at++;
    if (format[at] === '%') {
      at = format.indexOf('%', at + 1);
      continue;
    }
    // Python rejects a key with a tuple before reading the rest; the rest is read only to show it.
    const named = format[at] === '(';
    if (named) {
      const close = format.indexOf(')', at);
      if (close < 0) return { ok: false, reason: 'incomplete', text: format.slice(start) };
      at = close + 1;
    }
    let takes = 1;
    while (at < format.length && flags.includes(format[at]!)) at++;
    if (format[at] === '*') (takes++, at++);
    else while (isDigit(format[at])) at++;
    if (format[at] === '.') {
      at++;
      if (format[at] === '*') (takes++, at++);
      else while (isDigit(format[at])) at++;
    }
    if (at < format.length && lengthModifiers.includes(format[at]!)) at++;
    if (at >= format.length) return { ok: false, reason: 'incomplete', text: format.slice(start) };
    const type = format[at++]!;
    const text = format.slice(start, at);
    if (named) return { ok: false, reason: 'mapping-key', text };
    if (!conversionTypes.includes(type)) return { ok: false, reason: 'unsupported', text };
    placeholders.push({ text, takes });
    argumentCount += takes;
    at = format.indexOf('%', at);
  }
  return { ok: true, placeholders, argumentCount };
}
