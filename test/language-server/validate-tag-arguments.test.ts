import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFindTags } from '../../language-server/src/service/checks/find-check.ts';
import { readFormat } from '../../language-server/src/service/checks/format-string.ts';
import { quickFixes } from '../../language-server/src/service/code-actions/quick-fixes.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { allCodes } from '../../language-server/src/service/problem.ts';
import { scalarNode, seqNode, type BNode } from '../../language-server/src/service/reading/blueprint-node.ts';
import { createSchemaIndex } from '../../language-server/src/service/schema/schema-index.ts';
import { acmeShopSchema } from './acme-shop-schema.ts';
import { marked, withoutFixes } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

/** A valid entry whose attribute `name` holds `value`. */
const attr = (value: string) =>
  `version: 1\nentries:\n  - model: idp_core.user\n    identifiers:\n      username: a\n    attrs:\n      name: ${value}\n`;

// Each row: a blueprint with ONE mistake («» marks the range), the code and the exact message.
const mistakes: [string, string, string, string][] = [
  // !Find / !FindObject: [app.model, [field, value], ...]
  [
    '!Find with flat arguments',
    attr('!Find [idp_flows.flow, «slug, default»]'),
    'tag-find-shape',
    '!Find takes [field, value] pairs after the model, not flat arguments: write !Find [idp_flows.flow, [slug, default]].',
  ],
  [
    '!FindObject with two flat pairs',
    attr('!FindObject [idp_flows.flow, «slug, x, name, y»]'),
    'tag-find-shape',
    '!FindObject takes [field, value] pairs after the model, not flat arguments: write !FindObject [idp_flows.flow, [slug, x], [name, y]].',
  ],
  [
    '!Find with a lone scalar after a pair',
    attr('!Find [idp_flows.flow, [slug, x], «name»]'),
    'tag-find-shape',
    '!Find takes [field, value] pairs after the model, not flat arguments: write !Find [idp_flows.flow, [field, value], ...].',
  ],
  [
    '!Find query of 1 item',
    attr('!Find [idp_flows.flow, «[slug]»]'),
    'tag-find-shape',
    'A !Find query is a [field, value] pair, but this one has 1 item.',
  ],
  [
    '!Find query of 3 items',
    attr('!Find [idp_flows.flow, «[slug, x, y]»]'),
    'tag-find-shape',
    'A !Find query is a [field, value] pair, but this one has 3 items.',
  ],
  [
    '!Find query written as a mapping',
    attr('!Find [idp_flows.flow, «{slug: x}»]'),
    'tag-find-shape',
    'A !Find query is a [field, value] pair, not a mapping: write [slug, x].',
  ],
  [
    '!Find query computed by a tag (the service reads the node, it does not resolve it)',
    attr('!Find [idp_flows.flow, «!Context query»]'),
    'tag-find-shape',
    'A !Find query must be a literal [field, value] pair: the service does not resolve !Context in its place.',
  ],
  [
    '!Find model without its app label',
    attr('!Find [«flow», [slug, x]]'),
    'tag-find-shape',
    "The first item of !Find is the model, written <app>.<model>, not 'flow'. Did you mean 'idp_flows.flow'?",
  ],
  [
    '!Find model a sequence',
    attr('!Find [«[idp_flows.flow]», [slug, x]]'),
    'tag-find-shape',
    'The first item of !Find is the model, written <app>.<model>, not a sequence.',
  ],
  [
    '!Find model misspelt',
    attr('!Find [«idp_flows.flw», [slug, x]]'),
    'tag-find-model-unknown',
    "Unknown model 'idp_flows.flw' for !Find. Did you mean 'idp_flows.flow'?",
  ],
  [
    '!FindObject model with the app label in another case (matched exactly)',
    attr('!FindObject [«Idp_flows.flow», [slug, x]]'),
    'tag-find-model-unknown',
    "Unknown model 'Idp_flows.flow' for !FindObject (the app label must match exactly). Did you mean 'idp_flows.flow'?",
  ],
  [
    '!Find model part in another case (folded by the service)',
    attr('!Find [«idp_flows.Flow», [slug, x]]'),
    'model-case',
    'model names are lowercase: idp_flows.flow.',
  ],
  [
    '!Find field misspelt',
    attr('!Find [idp_flows.flow, [«slgu», x]]'),
    'tag-find-field-unknown',
    "idp_flows.flow has no field 'slgu'. Did you mean 'slug'?",
  ],
  [
    '!Find field misspelt before a lookup',
    attr('!Find [idp_flows.flow, [«slgu__iexact», x]]'),
    'tag-find-field-unknown',
    "idp_flows.flow has no field 'slgu' (in 'slgu__iexact'). Did you mean 'slug'?",
  ],
  [
    '!Find nested in a !Format argument',
    attr('!Format ["%s", !Find [idp_flows.flow, «slug, x»]]'),
    'tag-find-shape',
    '!Find takes [field, value] pairs after the model, not flat arguments: write !Find [idp_flows.flow, [slug, x]].',
  ],
  [
    '!Find outside the entries (in context)',
    'version: 1\ncontext:\n  flow: !Find [idp_flows.flow, «slug, x»]\nentries: []\n',
    'tag-find-shape',
    '!Find takes [field, value] pairs after the model, not flat arguments: write !Find [idp_flows.flow, [slug, x]].',
  ],

  // !Format [format, arg, ...]: Python's `format % tuple(args)`
  [
    '!Format with fewer arguments than placeholders',
    attr('!Format [«"%s-%s"», x]'),
    'tag-format-arguments',
    'The !Format string has 2 placeholders (%s, %s), but 1 argument follows it.',
  ],
  [
    '!Format with more arguments than placeholders',
    attr('!Format [«"%s"», x, y]'),
    'tag-format-arguments',
    'The !Format string has 1 placeholder (%s), but 2 arguments follow it.',
  ],
  [
    '!Format with arguments but no placeholder',
    attr('!Format [«"100%% done"», x]'),
    'tag-format-arguments',
    'The !Format string has no placeholders, but 1 argument follows it.',
  ],
  [
    '!Format: a percent sign followed by a space and a letter is a placeholder',
    attr('!Format [«"100% sure"»]'),
    'tag-format-arguments',
    'The !Format string has 1 placeholder (% s), but no arguments follow it. Write %% for a literal percent sign.',
  ],
  [
    '!Format: a * width takes an argument of its own',
    attr('!Format [«"%*d"», 5]'),
    'tag-format-arguments',
    'The !Format string has 2 placeholders (%*d), but 1 argument follows it.',
  ],
  [
    '!Format in block style',
    'version: 1\nentries: []\ncontext:\n  a: !Format\n    - «"%d items of %s"»\n    - !Context n\n',
    'tag-format-arguments',
    'The !Format string has 2 placeholders (%d, %s), but 1 argument follows it.',
  ],
  [
    '!Format with an unknown conversion',
    attr('!Format [«"50%y"», x]'),
    'tag-format-invalid',
    "The !Format string has '%y', which is not a placeholder Python's % accepts (such as %s or %d). Write %% for a literal percent sign.",
  ],
  [
    '!Format ending in a lone percent',
    attr('!Format [«"up 5%"»]'),
    'tag-format-invalid',
    "The !Format string ends in '%', an unfinished placeholder. Write %% for a literal percent sign.",
  ],
  [
    '!Format with a named placeholder',
    attr('!Format [«"%(name)s"», x]'),
    'tag-format-invalid',
    'The !Format string uses %(name)s, a named placeholder; !Format passes its arguments by position: use %s.',
  ],
  [
    '!Format with a number as its format string',
    attr('!Format [«5», x]'),
    'tag-format-invalid',
    'The first item of !Format is the format string: it must be a string, not 5.',
  ],

  // !Enumerate [iterable, SEQ|MAP, body]
  [
    '!Enumerate MAP with a scalar body',
    attr('!Enumerate [!Context items, MAP, «x»]'),
    'tag-enumerate-body',
    'With MAP, the !Enumerate body must be a mapping or a [key, value] pair, not a scalar.',
  ],
  [
    '!Enumerate map (any case) with a 1-item body',
    attr('!Enumerate [!Context items, map, «[!Index 0]»]'),
    'tag-enumerate-body',
    'With MAP, the !Enumerate body must be a mapping or a [key, value] pair, but this sequence has 1 item.',
  ],
  [
    '!Enumerate MAP with a 3-item body',
    attr('!Enumerate [!Context items, MAP, «[!Index 0, !Value 0, x]»]'),
    'tag-enumerate-body',
    'With MAP, the !Enumerate body must be a mapping or a [key, value] pair, but this sequence has 3 items.',
  ],
  [
    // Reported once, by the output check: the body is not judged against an unknown kind.
    '!Enumerate with another output kind',
    attr('!Enumerate [!Context items, «LIST», x]'),
    'tag-enumerate-output',
    "The !Enumerate output kind 'LIST' is not one of SEQ or MAP.",
  ],
];

describe('tag arguments: one mistake, one problem', () => {
  it.each(mistakes)('%s', (_name, source, code, message) => {
    const { text, range } = marked(source);
    const problems = service.doValidation(text);
    expect(withoutFixes(problems)).toEqual([
      { code, severity: allCodes[code as keyof typeof allCodes].severity, message, range },
    ]);
  });

  it('reports every misplaced query of one !Find, each on its own node', () => {
    const text = attr('!FindObject [idp_flows.flow, {slug: x}, [a], !Context q, slug, x, y]');
    const found = service.doValidation(text).map((problem) => [problem.code, text.slice(...problem.range)]);
    expect(found).toEqual([
      ['tag-find-shape', '{slug: x}'],
      ['tag-find-shape', '[a]'],
      ['tag-find-shape', '!Context q'],
      ['tag-find-shape', 'slug, x, y'],
    ]);
  });
});

// Each row: the correct counterpart of the mistakes above (or a nearby valid form).
const validForms: [string, string][] = [
  ['!Find with one pair', '!Find [idp_flows.flow, [slug, x]]'],
  ['!FindObject with the model only', '!FindObject [idp_flows.flow]'],
  ['!Find with several pairs', '!Find [idp_flows.flow, [slug, x], [name, y]]'],
  ['Django lookups after a field', '!Find [idp_flows.flow, [name__iexact, x], [slug__in, [a, b]]]'],
  ['a relation followed to a field of the related model', '!Find [idp_brands.brand, [flow_authentication__slug, x]]'],
  ['pk on any model', '!Find [idp_core.group, [pk, 1]]'],
  ['pk with a lookup', '!Find [idp_core.group, [pk__in, [1, 2]]]'],
  ['a model computed by a tag', '!Find [!Format ["%s", idp_flows.flow], [slug, x]]'],
  ['a field computed by a tag', '!Find [idp_flows.flow, [!Context field, !Context value]]'],
  ['a value computed by a tag', '!Find [idp_flows.flow, [slug, !Context slug]]'],
  ['a query pair in block style', '!Find\n        - idp_flows.flow\n        -\n          - slug\n          - x'],
  ['!Format with as many arguments as placeholders', '!Format ["%s-%s", x, !Context y]'],
  [
    '!Format with every conversion type',
    '!Format ["%d %i %o %u %x %X %e %E %f %F %g %G %c %r %s %a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]',
  ],
  [
    '!Format with flags, width, precision and length',
    '!Format ["%-05.2f %#x %+d % d %ld %hd %Lf", 1, 2, 3, 4, 5, 6, 7]',
  ],
  ['!Format with * width and precision', '!Format ["%*.*f", 8, 2, 3.14159]'],
  ['!Format with a literal percent', '!Format ["100%% of %s", x]'],
  ['!Format without placeholders or arguments', '!Format [plain]'],
  ['!Format whose format string is a tag', '!Format [!Context fmt, x, y]'],
  ['!Enumerate MAP with a [key, value] body', '!Enumerate [!Context items, MAP, [!Index 0, !Value 0]]'],
  ['!Enumerate MAP with a mapping body', '!Enumerate [!Context items, MAP, {key: !Value 0}]'],
  ['!Enumerate MAP with a computed body', '!Enumerate [!Context items, MAP, !If [true, [a, b], {c: d}]]'],
  // With SEQ each result of the body is appended, whatever it is.
  ['!Enumerate SEQ with a scalar body', '!Enumerate [!Context items, SEQ, x]'],
  ['!Enumerate SEQ with a mapping body', '!Enumerate [!Context items, SEQ, {a: !Value 0}]'],
  ['!Enumerate SEQ with a sequence body', '!Enumerate [!Context items, SEQ, [!Index 0, !Value 0, x]]'],
];

describe('tag arguments: valid forms give no problem', () => {
  it.each(validForms)('%s', (_name, value) => {
    expect(service.doValidation(attr(value))).toEqual([]);
  });
});

describe('readFormat (Python % with a tuple)', () => {
  const cases: [string, number, string[]][] = [
    ['plain', 0, []],
    ['%s', 1, ['%s']],
    ['%%', 0, []],
    ['%%%s%%', 1, ['%s']],
    ['foo-%s-%s-%s', 3, ['%s', '%s', '%s']],
    ['%-05.2f|%#x|%+d|% d', 4, ['%-05.2f', '%#x', '%+d', '% d']],
    ['%*d %.*f %*.*e', 7, ['%*d', '%.*f', '%*.*e']],
    ['%ld %hi %Lf', 3, ['%ld', '%hi', '%Lf']],
    ['100% sure', 1, ['% s']],
  ];
  it.each(cases)('%s takes %i arguments', (format, count, placeholders) => {
    const reading = readFormat(format);
    expect(reading).toEqual({ ok: true, argumentCount: count, placeholders: expect.any(Array) });
    expect(reading.ok && reading.placeholders.map((p) => p.text)).toEqual(placeholders);
  });

  const invalid: [string, string, string][] = [
    ['%y', 'unsupported', '%y'],
    ['%b', 'unsupported', '%b'],
    ['%lld', 'unsupported', '%ll'],
    ['%5%', 'unsupported', '%5%'],
    ['%-(a)s', 'unsupported', '%-('],
    ['abc%', 'incomplete', '%'],
    ['%-5', 'incomplete', '%-5'],
    ['%(a', 'incomplete', '%(a'],
    ['%(a)s', 'mapping-key', '%(a)s'],
  ];
  it.each(invalid)('%s is rejected (%s)', (format, reason, text) => {
    expect(readFormat(format)).toEqual({ ok: false, reason, text });
  });
});

describe('!Find against another schema of the same shape', () => {
  const acme = createLanguageService({ schema: acmeShopSchema });
  const widget = (value: string) =>
    `version: 1\nentries:\n  - model: acme_shop.widget\n    identifiers: {sku: a}\n    attrs:\n      size: ${value}\n`;
  const cases: [string, string, string][] = [
    [
      widget('!Find [«acme_shop.widgt», [sku, a]]'),
      'tag-find-model-unknown',
      "Unknown model 'acme_shop.widgt' for !Find. Did you mean 'acme_shop.widget'?",
    ],
    [
      // Its read-only fields are not known: the field may be one of them.
      widget('!Find [acme_shop.widget, [«siz», 1]]'),
      'tag-find-field-unlisted',
      "acme_shop.widget has no writable field 'siz'; it may be read-only. Did you mean 'size'?",
    ],
    [
      widget('!Find [«gadget», [colour, red]]'),
      'tag-find-shape',
      "The first item of !Find is the model, written <app>.<model>, not 'gadget'. Did you mean 'acme_shop.gadget'?",
    ],
  ];
  it.each(cases)('%s', (source, code, message) => {
    const { text, range } = marked(source);
    expect(acme.doValidation(text).map(({ code, message, range }) => ({ code, message, range }))).toEqual([
      { code, message, range },
    ]);
  });

  it('accepts its own models and fields', () => {
    expect(acme.doValidation(widget('!Find [acme_shop.gadget, [colour__iexact, red]]'))).toEqual([]);
  });
});

describe('quick fixes of !Find names', () => {
  const fixOf = (source: string, code: string) => {
    const problems = service.doValidation(source);
    const problem = problems.find((found) => found.code === code);
    if (!problem) expect.fail(`no ${code} in ${JSON.stringify(problems)}`);
    const [fix, ...others] = quickFixes(source, problems, problem.range);
    expect(others).toEqual([]);
    let result = source;
    for (const edit of [...fix!.edits].sort((a, b) => b.range[0] - a.range[0])) {
      result = result.slice(0, edit.range[0]) + edit.newText + result.slice(edit.range[1]);
    }
    expect(service.doValidation(result)).toEqual([]);
    return { title: fix!.title, preferred: fix!.preferred, result };
  };

  it('changes a misspelt model to the suggestion', () => {
    const { title, preferred, result } = fixOf(attr('!Find [idp_flows.flw, [slug, x]]'), 'tag-find-model-unknown');
    expect({ title, preferred }).toEqual({ title: "Change to 'idp_flows.flow'", preferred: true });
    expect(result).toContain('!Find [idp_flows.flow, [slug, x]]');
  });

  it('lowercases the model part', () => {
    const { result } = fixOf(attr('!FindObject [idp_flows.Flow, [slug, x]]'), 'model-case');
    expect(result).toContain('!FindObject [idp_flows.flow, [slug, x]]');
  });

  it('changes a misspelt field and keeps its lookup', () => {
    const { title, result } = fixOf(attr('!Find [idp_flows.flow, [slgu__iexact, x]]'), 'tag-find-field-unknown');
    expect(title).toBe("Change to 'slug__iexact'");
    expect(result).toContain('[slug__iexact, x]');
  });
});

describe('hostile input', () => {
  it('walks a very deep tree of !Find without recursion', () => {
    const index = createSchemaIndex(acmeShopSchema);
    let node: BNode = scalarNode('x', 0, 1);
    for (let depth = 0; depth < 200_000; depth++) {
      const pair = seqNode([scalarNode('sku', 0, 1), node], true, 0, 1);
      const model = scalarNode('acme_shop.widget', 0, 1);
      node = seqNode([model, pair], true, 0, 1, { tag: '!Find' });
    }
    expect(checkFindTags(node, index)).toEqual([]);
  });

  it('reads a long format string in linear time', () => {
    const format = '%s'.repeat(100_000) + '%%'.repeat(100_000);
    const started = performance.now();
    const reading = readFormat(format);
    expect(reading.ok && reading.argumentCount).toBe(100_000);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
