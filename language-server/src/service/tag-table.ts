/** The 14 custom tags of blueprints, as data: what node kinds each accepts and how many items. */

export type TagNodeKind = 'scalar' | 'seq' | 'map';

export interface Arity {
  min: number;
  /** Undefined: no upper bound. */
  max?: number;
  /** Counts between min and max that are still wrong (`!If` takes 1 or 3 items, not 2). */
  except?: readonly number[];
  /** How the rule reads in a message, e.g. '1 or 3 items'. */
  text: string;
}

export interface TagInfo {
  name: string;
  kinds: readonly TagNodeKind[];
  /** Item count rule when the tag is written on a sequence. */
  arity?: Arity;
  /** One line, for hovers and messages. */
  meaning: string;
  /** The argument shapes, for documentation. */
  forms: readonly string[];
}

// The service always reads the default of the sequence form, so a one-item sequence fails when applied.
const pairWithDefault: Arity = { min: 2, max: 2, text: '2 items ([name, default])' };

export const blueprintTags: readonly TagInfo[] = [
  {
    name: '!KeyOf',
    kinds: ['scalar'],
    meaning: 'The primary key of the object created by an earlier entry with this `id`.',
    forms: ['!KeyOf entry-id'],
  },
  {
    name: '!Env',
    kinds: ['scalar', 'seq'],
    arity: pairWithDefault,
    meaning: 'The value of an environment variable, or the default when it is unset or empty.',
    forms: ['!Env NAME', '!Env [NAME, default]'],
  },
  {
    name: '!File',
    kinds: ['scalar', 'seq'],
    arity: pairWithDefault,
    meaning: 'The contents of a file with surrounding whitespace removed, or the default when unreadable.',
    forms: ['!File /path', '!File [/path, default]'],
  },
  {
    name: '!Context',
    kinds: ['scalar', 'seq'],
    arity: pairWithDefault,
    meaning: 'A value from the blueprint context (the key is flat and may contain `/` and `.`).',
    forms: ['!Context key', '!Context [key, default]'],
  },
  {
    name: '!ParseJSON',
    kinds: ['scalar'],
    meaning: 'The value obtained by parsing the given text as JSON.',
    forms: ['!ParseJSON \'{"a": 1}\''],
  },
  {
    name: '!Format',
    kinds: ['seq'],
    arity: { min: 1, text: 'at least 1 item (the format string)' },
    meaning: 'A string built printf-style: each `%s` in the format is replaced by the next argument.',
    forms: ['!Format [format, arg, ...]'],
  },
  {
    name: '!Find',
    kinds: ['seq'],
    arity: { min: 1, text: 'at least 1 item (the model)' },
    meaning: 'The primary key of the first existing object of a model matching all [field, value] pairs, or null.',
    forms: ['!Find [app.model, [field, value], ...]'],
  },
  {
    name: '!FindObject',
    kinds: ['seq'],
    arity: { min: 1, text: 'at least 1 item (the model)' },
    meaning: 'The data of the first existing object of a model matching all [field, value] pairs, or null.',
    forms: ['!FindObject [app.model, [field, value], ...]'],
  },
  {
    name: '!Condition',
    kinds: ['seq'],
    arity: { min: 2, text: 'at least 2 items (the mode and one argument)' },
    meaning: 'A boolean combining the truthiness of the arguments with AND, NAND, OR, NOR, XOR or XNOR.',
    forms: ['!Condition [MODE, arg, ...]'],
  },
  {
    name: '!If',
    kinds: ['seq'],
    arity: { min: 1, max: 3, except: [2], text: '1 or 3 items ([condition] or [condition, then, else])' },
    meaning: 'Chooses by truthiness: [cond] gives true/false, [cond, then, else] gives then or else.',
    forms: ['!If [condition]', '!If [condition, when-true, when-false]'],
  },
  {
    name: '!Enumerate',
    kinds: ['seq'],
    arity: { min: 3, max: 3, text: 'exactly 3 items ([iterable, SEQ or MAP, body])' },
    meaning: 'Repeats the body for each item of a sequence or mapping and collects the results.',
    forms: ['!Enumerate [iterable, SEQ, body]', '!Enumerate [iterable, MAP, [key, value]]'],
  },
  {
    name: '!Index',
    kinds: ['scalar'],
    meaning: 'The current key or position of the enclosing !Enumerate at depth n (0 is the innermost).',
    forms: ['!Index 0'],
  },
  {
    name: '!Value',
    kinds: ['scalar'],
    meaning: 'The current item of the enclosing !Enumerate at depth n (0 is the innermost).',
    forms: ['!Value 0'],
  },
  {
    name: '!AtIndex',
    kinds: ['seq'],
    arity: { min: 2, max: 3, text: '2 or 3 items ([object, key] or [object, key, default])' },
    meaning: 'The item of a sequence or mapping at a position or key, or the default when missing.',
    forms: ['!AtIndex [object, key]', '!AtIndex [object, key, default]'],
  },
];

export const tagsByName: ReadonlyMap<string, TagInfo> = new Map(blueprintTags.map((tag) => [tag.name, tag]));

export const conditionModes = ['AND', 'NAND', 'OR', 'NOR', 'XOR', 'XNOR'] as const;
export const enumerateOutputs = ['SEQ', 'MAP'] as const;

export function arityAllows(arity: Arity, count: number): boolean {
  return count >= arity.min && (arity.max === undefined || count <= arity.max) && !arity.except?.includes(count);
}
