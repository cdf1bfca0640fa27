/** Offsets into the text: `start` inclusive, `end` exclusive. */
export type Range = [start: number, end: number];

export type Severity = 'error' | 'warning' | 'information';

export interface Problem {
  range: Range;
  severity: Severity;
  code: string;
  message: string;
  /** Edits that correct the mistake, e.g. the name a "did you mean" suggests (quick fixes in an editor). */
  fixes?: Fix[];
}

export interface TextEdit {
  range: Range;
  newText: string;
}

export interface Fix {
  /** What the fix does, as an editor shows it: "Change to 'slug'". */
  title: string;
  edits: TextEdit[];
}

/** The problem with a fix that replaces `range` by `newText` (several calls add several fixes). */
export function withFix(found: Problem, title: string, range: Range, newText: string): Problem {
  const fix: Fix = { title, edits: [{ range: [range[0], range[1]], newText }] };
  found.fixes = [...(found.fixes ?? []), fix];
  return found;
}

/** The problem with one "Change to '<suggestion>'" fix per suggestion, replacing `range`. */
export function withSuggestions(found: Problem, range: Range, suggestions: readonly (string | undefined)[]): Problem {
  for (const suggestion of suggestions) if (suggestion) withFix(found, `Change to '${suggestion}'`, range, suggestion);
  return found;
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
  'nesting-too-deep': {
    severity: 'error',
    meaning:
      'Collections nested deeper than 500 levels; the text is not checked further (no real blueprint nests so deep).',
  },
  'problems-not-shown': {
    severity: 'information',
    meaning:
      'An editor is sent at most 1,000 problems per document; this last one counts the rest (with the severity of the most severe). The linter reports all.',
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
  'tag-enumerate-body': {
    severity: 'error',
    meaning: '!Enumerate with MAP has a body that is neither a mapping nor a [key, value] pair.',
  },
  'tag-format-arguments': {
    severity: 'error',
    meaning: '!Format has more or fewer arguments than its format string has placeholders (%% is a literal %).',
  },
  'tag-format-invalid': {
    severity: 'error',
    meaning:
      "!Format's format string is not a string, or has a placeholder Python's % rejects (%y, a lone % at the end, %(name)s).",
  },
  'tag-find-shape': {
    severity: 'error',
    meaning:
      '!Find/!FindObject is not [app.model, [field, value], ...]: the model is not a name, or a query is not a literal pair (e.g. flat arguments).',
  },
  'tag-find-model-unknown': {
    severity: 'error',
    meaning: '!Find/!FindObject names a model the release does not have; the service fails the entry.',
  },
  'tag-find-model-not-blueprint': {
    severity: 'warning',
    meaning:
      '!Find/!FindObject names a model of the release that blueprints cannot create (a base class, a session): the search works, but its fields are not checked.',
  },
  'tag-find-field-unknown': {
    severity: 'error',
    meaning:
      'A !Find/!FindObject query field (the part before any __lookup) the model has neither as a writable nor as a read-only field; the service fails the entry.',
  },
  'tag-find-field-unlisted': {
    severity: 'warning',
    meaning:
      'A !Find/!FindObject query field the schema does not list, on a model whose read-only fields the checker does not know: often a typo.',
  },
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

/** The codes reported by the schema checks (`checks/top-level-check.ts`, `checks/entry-check.ts` and its parts). */
export const schemaCodes = {
  'root-not-map': {
    severity: 'error',
    meaning: 'The blueprint is not a mapping of version, metadata, context, entries.',
  },
  'top-unknown-key': { severity: 'error', meaning: 'A top-level key the schema does not define.' },
  'version-missing': { severity: 'error', meaning: 'The blueprint has no version.' },
  'version-not-integer': {
    severity: 'error',
    meaning: 'version is not an integer (a string, or a float such as 1.0, which the service refuses).',
  },
  'version-unsupported': { severity: 'error', meaning: 'version is a whole number the service does not accept.' },
  'entries-missing': { severity: 'error', meaning: 'The blueprint has no entries.' },
  'entries-invalid': { severity: 'error', meaning: 'entries is neither a sequence nor a mapping of sequences.' },
  'metadata-invalid': { severity: 'error', meaning: 'metadata (or its name or labels) has the wrong shape.' },
  'metadata-name-missing': { severity: 'error', meaning: 'metadata has no name.' },
  'label-not-string': {
    severity: 'error',
    meaning: 'A label value is not a string (quote it); the service refuses to load the file.',
  },
  'entry-not-map': { severity: 'error', meaning: 'An entry is not a mapping.' },
  'model-missing': { severity: 'error', meaning: 'An entry has no model.' },
  'model-unknown': { severity: 'error', meaning: 'An entry names a model the schema does not know.' },
  'model-case': {
    severity: 'warning',
    meaning: 'The model part of a model name differs from the schema only in case; the service lowercases it.',
  },
  'model-case-strict': {
    severity: 'error',
    meaning:
      'A model name differs from the schema in the case of a part the service matches exactly (the app label, or the whole name of the model without identifiers).',
  },
  'entry-unknown-key': { severity: 'error', meaning: 'An entry key that this model’s entries do not have.' },
  'state-invalid': { severity: 'error', meaning: 'state is not one of the allowed states.' },
  'conditions-not-sequence': { severity: 'error', meaning: 'conditions is not a sequence.' },
  'condition-not-boolean': {
    severity: 'warning',
    meaning: 'A conditions item is a literal other than true/false (the service uses truthiness).',
  },
  'identifiers-missing': { severity: 'error', meaning: 'An entry of a model that needs identifiers has none.' },
  'identifiers-empty': { severity: 'error', meaning: 'identifiers is an empty mapping.' },
  'field-unknown': {
    severity: 'warning',
    meaning: 'An attrs/identifiers field the model does not have (the service ignores it; often a typo).',
  },
  'field-invalid': { severity: 'error', meaning: 'A field value has the wrong type, enum value, format or bounds.' },
  'field-enum-coerced': {
    severity: 'warning',
    meaning: 'A number written where the schema lists strings; the service converts it.',
  },
  'field-number-quoted': {
    severity: 'warning',
    meaning: 'A number written as a string where the schema wants a number; the service converts it.',
  },
  'permissions-invalid': { severity: 'error', meaning: 'permissions, or one of its items, has the wrong shape.' },
  'permission-unknown': { severity: 'error', meaning: 'A permission codename this model does not have.' },
  'permission-other-app': {
    severity: 'warning',
    meaning: "A permission qualified with another app's label; the service goes by the codename alone.",
  },
  'attrs-identifiers-missing': {
    severity: 'error',
    meaning: 'An entry of the model without identifiers (it applies another blueprint) has no attrs.identifiers.',
  },
} as const satisfies Record<string, ProblemCodeInfo>;

export type SchemaCode = keyof typeof schemaCodes;

/** The codes reported by the cross-entry checks (`checks/reference-check.ts`). */
export const referenceCodes = {
  'keyof-empty': { severity: 'error', meaning: '!KeyOf has no entry id to refer to.' },
  'keyof-unknown-id': { severity: 'error', meaning: '!KeyOf names an id that no entry of the file has.' },
  'keyof-later-entry': {
    severity: 'error',
    meaning: '!KeyOf names an id defined only by its own entry or a later one; it only sees entries above it.',
  },
  'keyof-absent-entry': {
    severity: 'error',
    meaning: '!KeyOf names an id whose entries above all have state: absent, so there is no object to refer to.',
  },
  'keyof-skipped-entry': {
    severity: 'warning',
    meaning: '!KeyOf names an id whose entries above all have a falsy literal in conditions, so they are skipped.',
  },
  'id-duplicate': {
    severity: 'warning',
    meaning: 'An entry id already used by an entry above: !KeyOf finds the first of them that created an object.',
  },
} as const satisfies Record<string, ProblemCodeInfo>;

export type ReferenceCode = keyof typeof referenceCodes;

/** The codes of the serializers' rules across the fields of one entry (`checks/cross-field-check.ts`). */
export const crossFieldCodes = {
  'field-combination': {
    severity: 'error',
    meaning:
      "A combination of an entry's fields that the service's serializer refuses (schemas/source/cross-field-rules.yaml), such as a binding with both a policy and a group.",
  },
} as const satisfies Record<string, ProblemCodeInfo>;

/**
 * The codes of what the service itself refuses or does beyond the schema: Python that does not
 * compile (`checks/expression-check.ts`), entries that select the same object
 * (`checks/identifier-collision-check.ts`).
 */
export const serviceCodes = {
  'expression-syntax': {
    severity: 'error',
    meaning:
      "An expression the service runs as Python (an expression policy's, a property mapping's, a prompt's placeholder or initial value) has a syntax error; the service refuses it.",
  },
  'identifiers-collision': {
    severity: 'warning',
    meaning:
      'An entry whose model and identifiers select the same object as an entry above it: the service updates that object again, overwriting what the first entry set.',
  },
  'expression-not-checked': {
    severity: 'information',
    meaning: "An expression too long or too tangled to parse within the checker's bounds: its Python is not checked.",
  },
} as const satisfies Record<string, ProblemCodeInfo>;

export type ServiceCode = keyof typeof serviceCodes;

/** Every code the language service reports, in one table. */
export const allCodes = {
  ...syntaxAndTagCodes,
  ...schemaCodes,
  ...referenceCodes,
  ...crossFieldCodes,
  ...serviceCodes,
} as const;

/** How many problems the language server sends an editor per document (`limitProblems`). */
export const MAX_PUBLISHED_PROBLEMS = 1000;

const severityRank: Record<Severity, number> = { error: 0, warning: 1, information: 2 };

/**
 * At most `max` problems, in their order, and when some are left out one more at the position of
 * the first left out saying how many: "N more problems not shown", with the severity of the most
 * severe of them. What an editor is sent; a linter reports everything.
 */
export function limitProblems(problems: readonly Problem[], max: number): Problem[] {
  if (problems.length <= max) return [...problems];
  const shown = problems.slice(0, max);
  let severity: Severity = 'information';
  for (let i = max; i < problems.length; i++) {
    if (severityRank[problems[i]!.severity] < severityRank[severity]) severity = problems[i]!.severity;
  }
  const hidden = problems.length - max;
  const at = problems[max]!.range[0];
  const message = `${hidden} more problem${hidden === 1 ? '' : 's'} not shown (at most ${max} are shown per document).`;
  shown.push({ ...problem(syntaxAndTagCodes, 'problems-not-shown', [at, at], message), severity });
  return shown;
}
