import { describe, expect, it } from 'vitest';
import { syntaxAndTagCodes } from '../../language-server/src/service/problem.ts';
import { blueprintTags } from '../../language-server/src/service/tag-table.ts';
import { allProblems, marked, withoutFixes } from './helpers.ts';

// Each row: one blueprint fragment with one mistake, the covered text marked with «».
const mistakes: [string, string, string, string][] = [
  ['unknown tag, case slip', 'a: «!Keyof» flow', 'tag-unknown', 'Unknown tag !Keyof. Did you mean !KeyOf?'],
  ['unknown tag, missing letter', 'a: «!Contxt» key', 'tag-unknown', 'Unknown tag !Contxt. Did you mean !Context?'],
  [
    'unknown tag, nothing near',
    'a: «!Whatever» x',
    'tag-unknown',
    'Unknown tag !Whatever. Blueprint tags are ' + blueprintTags.map((t) => t.name).join(', ') + '.',
  ],
  [
    '!KeyOf on a sequence',
    'a: «!KeyOf [a, b]»',
    'tag-wrong-kind',
    '!KeyOf takes a scalar (!KeyOf entry-id), not a sequence.',
  ],
  [
    '!Format on a scalar',
    'a: «!Format foo-%s»',
    'tag-wrong-kind',
    '!Format takes a sequence (!Format [format, arg, ...]), not a scalar.',
  ],
  [
    '!Env on a mapping',
    'a: «!Env {name: X}»',
    'tag-wrong-kind',
    '!Env takes a scalar or a sequence (!Env NAME or !Env [NAME, default]), not a mapping.',
  ],
  [
    '!AtIndex on a scalar',
    'a: «!AtIndex items»',
    'tag-wrong-kind',
    '!AtIndex takes a sequence (!AtIndex [object, key] or !AtIndex [object, key, default]), not a scalar.',
  ],
  [
    '!If with 2 items',
    'a: «!If [true, yes]»',
    'tag-arity',
    '!If takes 1 or 3 items ([condition] or [condition, then, else]), but has 2 items.',
  ],
  [
    '!Enumerate with 2 items',
    'a: «!Enumerate [[1], SEQ]»',
    'tag-arity',
    '!Enumerate takes exactly 3 items ([iterable, SEQ or MAP, body]), but has 2 items. The body is missing: write !Enumerate [<iterable>, SEQ or MAP, <body>].',
  ],
  [
    '!AtIndex with 1 item',
    'a: «!AtIndex [[1]]»',
    'tag-arity',
    '!AtIndex takes 2 or 3 items ([object, key] or [object, key, default]), but has 1 item.',
  ],
  ['!Env with 3 items', 'a: «!Env [A, b, c]»', 'tag-arity', '!Env takes 2 items ([name, default]), but has 3 items.'],
  [
    '!Env [NAME] without its default (the sequence form always reads one)',
    'a: «!Env [HOME]»',
    'tag-arity',
    '!Env takes 2 items ([name, default]), but has 1 item.',
  ],
  [
    '!Context with no items',
    'a: «!Context []»',
    'tag-arity',
    '!Context takes 2 items ([name, default]), but has 0 items.',
  ],
  [
    '!Format empty',
    'a: «!Format []»',
    'tag-arity',
    '!Format takes at least 1 item (the format string), but has 0 items.',
  ],
  ['!Find empty', 'a: «!Find []»', 'tag-arity', '!Find takes at least 1 item (the model), but has 0 items.'],
  [
    '!Condition with a mode only',
    'a: «!Condition [AND]»',
    'tag-arity',
    '!Condition takes at least 2 items (the mode and one argument), but has 1 item.',
  ],
  [
    '!Condition mode misspelt',
    'a: !Condition [«ANDD», true]',
    'tag-condition-mode',
    "The !Condition mode 'ANDD' is not one of AND, NAND, OR, NOR, XOR or XNOR. Did you mean AND?",
  ],
  [
    '!Condition mode computed',
    'a: !Condition [«!Context mode», true]',
    'tag-condition-mode',
    'The !Condition mode must be written as one of AND, NAND, OR, NOR, XOR or XNOR; it cannot be computed.',
  ],
  [
    '!Enumerate output kind',
    'a: !Enumerate [[1], «LIST», !Value 0]',
    'tag-enumerate-output',
    "The !Enumerate output kind 'LIST' is not one of SEQ or MAP.",
  ],
  [
    '!Index not a number',
    'a: !Enumerate [[1], SEQ, «!Index first»]',
    'tag-depth-invalid',
    "!Index takes a depth: a whole number 0 or more (0 is the innermost !Enumerate), not 'first'.",
  ],
  [
    '!Value negative',
    'a: !Enumerate [[1], SEQ, «!Value -1»]',
    'tag-depth-invalid',
    "!Value takes a depth: a whole number 0 or more (0 is the innermost !Enumerate), not '-1'.",
  ],
  [
    '!Index too deep',
    'a: !Enumerate [[1], SEQ, «!Index 1»]',
    'tag-depth-out-of-range',
    '!Index 1 is too deep: there is 1 enclosing !Enumerate, so the depth must be at most 0.',
  ],
  [
    '!Value outside !Enumerate',
    'a: [«!Value 0»]',
    'tag-outside-enumerate',
    '!Value can only be used inside an !Enumerate.',
  ],
  [
    '!Value 0 as the iterable of its own !Enumerate',
    'a: !Enumerate [[[1]], SEQ, !Enumerate [«!Value 0», SEQ, x]]',
    'tag-depth-not-in-body',
    '!Value 0 refers to the !Enumerate whose iterable or output kind it is in, which has no current item there. ' +
      'Use a greater depth to reach an outer !Enumerate, or move it into the body.',
  ],
];

describe('checkTags: one mistake, one problem', () => {
  it.each(mistakes)('%s', (_name, source, code, message) => {
    const { text, range } = marked(source);
    const problems = allProblems(text);
    expect(withoutFixes(problems)).toEqual([{ range, code, message, severity: 'error' }]);
    expect(syntaxAndTagCodes).toHaveProperty(code);
  });
});

// Each row: the correct counterpart of the mistakes above (or a nearby valid form).
const validForms = [
  'a: !KeyOf flow',
  'a: !Context key',
  'a: !Context [key, default]',
  'a: !Context [idp.example/rbac/models, null]',
  'a: !Env [A, b]',
  'a: !File /tmp/x',
  'a: !ParseJSON \'{"a": 1}\'',
  'a: !Format [foo-%s, !Context x]',
  'a: !Format [plain]',
  'a: !Find [idp_flows.flow, [slug, x]]',
  'a: !FindObject [idp_flows.flow]',
  'a: !If [true]',
  'a: !If [true, yes, no]',
  'a: !AtIndex [[1, 2], 0]',
  'a: !AtIndex [[1, 2], 5, none]',
  'a: !Condition [and, true]',
  'a: !Condition [XnOr, true, false, 1]',
  'a: !Enumerate [[1], seq, !Value 0]',
  'a: !Enumerate [{k: v}, MAP, [!Index 0, !Value 0]]',
  // Inside the body of two nested !Enumerate, depths 0 and 1 both exist.
  'a: !Enumerate [[[1]], SEQ, !Enumerate [[2], SEQ, [!Value 0, !Index 1]]]',
  // The iterable of an inner !Enumerate may reach outer ones (depth counts the inner one too).
  'a: !Enumerate [[[1]], SEQ, !Enumerate [!Value 1, SEQ, !Value 0]]',
  'a: !!str 5',
  'a: ! 5',
  '!Format [x]',
];

describe('checkTags: valid forms give no problem', () => {
  it.each(validForms)('%s', (text) => {
    expect(allProblems(text)).toEqual([]);
  });
});

describe('checkTags: placement', () => {
  it('reports tags as keys, in block style and nested in other tags', () => {
    const text = [
      'entries:',
      '  - !Keyof x: 1',
      '    b: !Format',
      '      - !Condition [XAND, true]',
      '    c: !If',
      '      - true',
      '      - 1',
    ].join('\n');
    const problems = allProblems(text).map((p) => [p.code, text.slice(...p.range)]);
    expect(problems).toEqual([
      ['tag-unknown', '!Keyof'],
      ['tag-condition-mode', 'XAND'],
      ['tag-arity', '!If\n      - true\n      - 1'],
    ]);
  });

  it('every tag in the table has a meaning and at least one form', () => {
    expect(blueprintTags).toHaveLength(14);
    for (const tag of blueprintTags) {
      expect(tag.meaning.length).toBeGreaterThan(10);
      expect(tag.forms.length).toBeGreaterThan(0);
      expect(tag.forms.every((form) => form.startsWith(tag.name))).toBe(true);
    }
  });

  it('returns nothing for an empty tree', async () => {
    const { checkTags } = await import('../../language-server/src/service/checks/tag-check.ts');
    expect(checkTags(undefined)).toEqual([]);
  });
});
