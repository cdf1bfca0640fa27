/**
 * Dates from CSV cells, read with the import's strftime-style `date_format`. A format is compiled
 * once into an anchored RegExp plus the capture-group position of each part, so reading a row is
 * one `exec` and a calendar check.
 */

/** Reads one cell: `YYYY-MM-DD` when it is a real date written exactly in the format, else undefined. */
export type DateReader = (text: string) => string | undefined;

/** The part of a date a directive writes. */
type Part = 'year' | 'month' | 'day';

/** A directive: the part it writes, its pattern (one capture group) and how to read the capture. */
interface Directive {
  part: Part;
  pattern: string;
  /** `%y`: two digits, century implied. */
  shortYear?: boolean;
  /** `%b`, `%B`: an English month name. */
  monthName?: boolean;
}

/** Month names in English, full and abbreviated (`sept` too), lowercase. */
const MONTH_NAMES = new Map<string, number>();
'january february march april may june july august september october november december'
  .split(' ')
  .forEach((name, index) => {
    MONTH_NAMES.set(name, index + 1);
    MONTH_NAMES.set(name.slice(0, 3), index + 1);
  });
MONTH_NAMES.set('sept', 9);

/** Longest names first, each letter in both cases: only the month name is case-insensitive, not the literals. */
const MONTH_NAME_PATTERN = [...MONTH_NAMES.keys()]
  .sort((a, b) => b.length - a.length)
  .map((name) => [...name].map((letter) => `[${letter}${letter.toUpperCase()}]`).join(''))
  .join('|');

// The numeric patterns only admit values in range, so `13/01/2024` fails in the RegExp already and
// formats without separators (`%d%m%Y`) find a split that can be a date.
const MONTH = '(0?[1-9]|1[0-2])';
const DAY = '(0?[1-9]|[12]\\d|3[01])';

/** Each supported directive, by what follows the `%`. */
const DIRECTIVES = new Map<string, Directive>(
  Object.entries({
    Y: { part: 'year', pattern: '(\\d{4})' },
    y: { part: 'year', pattern: '(\\d{2})', shortYear: true },
    m: { part: 'month', pattern: MONTH },
    '-m': { part: 'month', pattern: MONTH },
    d: { part: 'day', pattern: DAY },
    '-d': { part: 'day', pattern: DAY },
    // %e writes the day padded with a space (` 5`); a zero-padded or unpadded day is accepted too.
    e: { part: 'day', pattern: '( [1-9]|0?[1-9]|[12]\\d|3[01])' },
    b: { part: 'month', pattern: `(${MONTH_NAME_PATTERN})`, monthName: true },
    B: { part: 'month', pattern: `(${MONTH_NAME_PATTERN})`, monthName: true },
  } satisfies Record<string, Directive>),
);

const SUPPORTED = '%Y %y %m %-m %d %-d %e %b %B %%';

function escapeLiteral(char: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(char) ? `\\${char}` : char;
}

/** Capture-group numbers of the year, month and day in the compiled RegExp, and how to read them. */
interface Groups {
  year: number;
  month: number;
  day: number;
  shortYear: boolean;
  monthName: boolean;
}

/**
 * A reader for dates written in `format` (`%d.%m.%Y`, `%m/%d/%Y`, `%b %d, %Y`, ...); every
 * character but a directive is a literal. Throws an `Error` saying why when the format uses a
 * directive this reader does not support, or does not name exactly one year, month and day.
 */
export function compileDateFormat(format: string): DateReader {
  let source = '^';
  const groups: Partial<Groups> = { shortYear: false, monthName: false };
  let group = 0;
  for (let at = 0; at < format.length; at += 1) {
    const char = format[at]!;
    if (char !== '%') {
      source += escapeLiteral(char);
      continue;
    }
    const name = format[at + 1] === '-' ? format.slice(at + 1, at + 3) : (format[at + 1] ?? '');
    at += name.length;
    if (name === '%') {
      source += '%';
      continue;
    }
    const directive = DIRECTIVES.get(name);
    if (!directive) {
      const shown = name === '' ? 'a lone "%" at the end' : `"%${name}"`;
      throw new Error(`Unsupported date format "${format}": ${shown}; supported directives are ${SUPPORTED}`);
    }
    if (groups[directive.part] !== undefined) {
      throw new Error(`Unsupported date format "${format}": it names the ${directive.part} twice`);
    }
    group += 1;
    groups[directive.part] = group;
    if (directive.shortYear) groups.shortYear = true;
    if (directive.monthName) groups.monthName = true;
    source += directive.pattern;
  }
  const missing = (['year', 'month', 'day'] as const).filter((part) => groups[part] === undefined);
  if (missing.length > 0) {
    throw new Error(`Unsupported date format "${format}": it has no ${missing.join(', ')} (supported: ${SUPPORTED})`);
  }
  return dateReader(new RegExp(`${source}$`), groups as Groups);
}

function dateReader(pattern: RegExp, groups: Groups): DateReader {
  return (text) => {
    const match = pattern.exec(text.trim());
    if (!match) return undefined;
    let year = Number(match[groups.year]);
    // POSIX: 69-99 are 1969-1999, 00-68 are 2000-2068.
    if (groups.shortYear) year += year >= 69 ? 1900 : 2000;
    const monthText = match[groups.month]!;
    const month = groups.monthName ? MONTH_NAMES.get(monthText.toLowerCase())! : Number(monthText);
    const day = Number(match[groups.day]);
    if (day > daysInMonth(year, month)) return undefined;
    return `${String(year).padStart(4, '0')}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
  };
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The first date an import accepts. */
const EARLIEST_DATE = '1970-01-01';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Whether `isoDate` (`YYYY-MM-DD`) is a reasonable date for an import: from 1970-01-01 through
 * five years after `today` (`YYYY-MM-DD`), both included. Five years after a 29 February is
 * 28 February, as in the reference service; ISO strings of one width compare like dates.
 */
export function dateWithinImportRange(isoDate: string, today: string): boolean {
  if (!ISO_DATE.test(isoDate)) return false;
  const year = Number(today.slice(0, 4)) + 5;
  const monthDay = today.slice(5) === '02-29' && !isLeapYear(year) ? '02-28' : today.slice(5);
  const latest = `${String(year).padStart(4, '0')}-${monthDay}`;
  return isoDate >= EARLIEST_DATE && isoDate <= latest;
}
