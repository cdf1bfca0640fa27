/** Offsets into the text: `start` inclusive, `end` exclusive. */
export type Range = [start: number, end: number];

export type Severity = 'error' | 'warning' | 'information';

export interface Problem {
  range: Range;
  severity: Severity;
  code: string;
  message: string;
}

/** One row of a code table: the default severity and what the code means, in one line. */
export interface ProblemCodeInfo {
  severity: Severity;
  meaning: string;
}

/**
 * The codes reported by the parser and the tag checks. Later rules (schema, cross-entry) define
 * their own table of the same shape; `problem()` accepts any such table's codes.
 */
export const syntaxAndTagCodes = {
  'yaml-syntax': { severity: 'error', meaning: 'The text is not well-formed YAML (or JSON).' },
  'yaml-warning': { severity: 'warning', meaning: 'The YAML parser accepted the text but found something dubious.' },
  'yaml-duplicate-key': {
    severity: 'warning',
    meaning: 'A mapping repeats a key; the service keeps the last value silently.',
  },
  'internal-error': { severity: 'error', meaning: 'The checker itself failed on this text (a bug in the checker).' },
  'tag-unknown': { severity: 'error', meaning: 'A custom tag that the service does not define.' },
  'tag-wrong-kind': { severity: 'error', meaning: 'A tag applied to a node kind it does not accept.' },
  'tag-arity': { severity: 'error', meaning: 'A sequence tag with too few or too many items.' },
  'tag-condition-mode': { severity: 'error', meaning: '!Condition mode is not AND, NAND, OR, NOR, XOR or XNOR.' },
  'tag-enumerate-output': { severity: 'error', meaning: '!Enumerate output kind (second item) is not SEQ or MAP.' },
  'tag-depth-invalid': { severity: 'error', meaning: '!Index/!Value argument is not a non-negative integer.' },
  'tag-depth-out-of-range': {
    severity: 'error',
    meaning: '!Index/!Value depth is not smaller than the number of enclosing !Enumerate tags.',
  },
  'tag-depth-not-in-body': {
    severity: 'error',
    meaning: '!Index/!Value points at an !Enumerate from outside its body, where it has no current item.',
  },
  'tag-outside-enumerate': { severity: 'error', meaning: '!Index/!Value used outside any !Enumerate.' },
} as const satisfies Record<string, ProblemCodeInfo>;

export type SyntaxAndTagCode = keyof typeof syntaxAndTagCodes;

/** Builds a problem whose severity comes from the code table. */
export function problem<T extends Record<string, ProblemCodeInfo>>(
  table: T,
  code: keyof T & string,
  range: Range,
  message: string,
): Problem {
  return { range: [range[0], range[1]], severity: table[code]!.severity, code, message };
}
