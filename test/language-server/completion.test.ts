import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { doComplete } from '../../language-server/src/service/completion/completion.ts';
import { knownLabels } from '../../language-server/src/service/completion/key-items.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { isObject, type ModelInfo } from '../../language-server/src/service/schema/schema-index.ts';
import { blueprintTags, conditionModes } from '../../language-server/src/service/tag-table.ts';
import { randomSource } from '../../server/demo/random-source.ts';
import { corpus, mutate } from './corpus-files.ts';
import { withStringDigits } from './helpers.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object;
const { index } = createLanguageService({ schema });
const tagNames = blueprintTags.map((tag) => tag.name);

/** Completion at the marker (`|` unless the text needs that character) of a blueprint written with one. */
function complete(source: string, marker = '|', schemaIndex = index) {
  const offset = source.indexOf(marker);
  if (offset < 0 || source.indexOf(marker, offset + 1) >= 0) throw new Error(`expected one ${marker} in ${source}`);
  const text = source.slice(0, offset) + source.slice(offset + marker.length);
  const result = doComplete(text, parseBlueprint(text).root, offset, schemaIndex);
  const item = (label: string) => {
    const found = result.items.find((candidate) => candidate.label === label);
    if (!found)
      throw new Error(`no item ${label} among ${result.items.map((candidate) => candidate.label).join(', ')}`);
    return found;
  };
  const labels = result.items.map((candidate) => candidate.label);
  return {
    ...result,
    labels,
    item,
    replaced: text.slice(...result.range),
    nonTags: labels.filter((label) => !label.startsWith('!')),
  };
}

function model(name: string): ModelInfo {
  const found = index.lookupModel(name).model;
  if (!found) throw new Error(`the schema has no ${name}`);
  return found;
}

/** A field's own schema, read from the model's definition. */
function field(modelName: string, name: string): Record<string, unknown> {
  const properties = model(modelName).fields?.properties;
  const found = isObject(properties) ? properties[name] : undefined;
  if (!isObject(found)) throw new Error(`${modelName} has no field ${name}`);
  return found;
}

const FLOW = 'idp_flows.flow';

describe('top-level keys', () => {
  it('offers the schema’s top-level keys at column 0 of an empty document', () => {
    expect(complete('|').labels).toEqual(index.topLevelKeys);
    expect(index.topLevelKeys).toEqual(['version', 'metadata', 'context', 'entries']);
  });

  it('leaves out the keys the document has, above and below the cursor', () => {
    expect(complete(`version: 1\n|\nentries:\n  - model: ${FLOW}\n`).labels).toEqual(['metadata', 'context']);
  });

  it('inserts a block for a mapping or a sequence, indented by the document’s step', () => {
    const result = complete('version: 1\n|');
    expect(result.item('metadata')).toMatchObject({ insertText: 'metadata:\n  $0', snippet: true, kind: 'property' });
    expect(result.item('entries').insertText).toBe('entries:\n  - $0');
    expect(complete('metadata:\n    name: x\n|').item('context').insertText).toBe('context:\n    $0');
  });

  it('offers the keys of metadata from the schema under it, not the top-level ones', () => {
    expect(complete('metadata:\n  |').labels).toEqual(['name', 'labels']);
  });
});

describe('entry keys', () => {
  it('offers every entry key after `- ` of a new entry', () => {
    const result = complete('version: 1\nentries:\n  - |');
    expect(result.labels).toEqual(index.entryKeys);
    expect(result.item('model')).toMatchObject({ insertText: 'model: ', retrigger: true });
  });

  it('aligned with an entry’s keys: its model’s keys, without those it has above or below', () => {
    const result = complete(`entries:\n  - model: ${FLOW}\n    id: flow\n    |\n    state: present\n`);
    const expected = model(FLOW).entryKeys.filter((key) => !['model', 'id', 'state'].includes(key));
    expect(result.labels).toEqual(expected);
    expect(result.item('attrs').insertText).toBe('attrs:\n      $0');
    expect(result.item('permissions').insertText).toBe('permissions:\n      - $0');
  });

  it('follows the model’s own keys (a model without identifiers gets none offered)', () => {
    const meta = [...index.models.values()].find((info) => !info.entryKeys.includes('identifiers'));
    expect(meta).toBeDefined();
    const result = complete(`entries:\n  - model: ${meta!.name}\n    |`);
    expect(result.labels).toEqual(meta!.entryKeys.filter((key) => key !== 'model'));
    expect(result.labels).not.toContain('identifiers');
  });

  it('works for entries at the indentation of `entries:` and in named groups', () => {
    expect(complete(`entries:\n- model: ${FLOW}\n  |\n- model: idp_core.user\n`).labels).not.toContain('model');
    expect(complete(`entries:\n  first:\n    - model: ${FLOW}\n      id: a\n      |`).labels).toEqual(
      model(FLOW).entryKeys.filter((key) => key !== 'model' && key !== 'id'),
    );
  });

  it('starts with a space right after the dash', () => {
    expect(complete('entries:\n  -|').item('id').insertText).toBe(' id: ');
  });

  it('replaces the half-typed key, and inserts only the name before an existing colon', () => {
    const typing = complete(`entries:\n  - model: ${FLOW}\n    sta|`);
    expect(typing.replaced).toBe('sta');
    const renaming = complete(`entries:\n  - model: ${FLOW}\n    sta|te: present`);
    expect(renaming.replaced).toBe('state');
    expect(renaming.item('attrs').insertText).toBe('attrs');
  });
});

describe('model values', () => {
  it('offers every model of the schema with its app, those starting with the typed text first', () => {
    const result = complete('entries:\n  - model: idp_fl|');
    expect(new Set(result.nonTags)).toEqual(new Set(index.modelNames));
    expect(result.nonTags).toHaveLength(index.modelNames.length);
    expect(result.replaced).toBe('idp_fl');
    expect(result.labels[0]!.startsWith('idp_fl')).toBe(true);
    for (const item of result.items.filter((candidate) => candidate.kind === 'model')) {
      expect(item.detail).toBe(index.models.get(item.label)!.app);
    }
    const sorted = [...result.items].sort((a, b) => a.sortText.localeCompare(b.sortText));
    expect(sorted.map((item) => item.label)).toEqual(result.labels);
  });

  it('ranks a match of the model part (after the app) next', () => {
    expect(complete('entries:\n  - model: flowstagebind|').labels[0]).toBe('idp_flows.flowstagebinding');
  });

  it('adds the space after a colon typed just before', () => {
    expect(complete('entries:\n  - model:|').item(FLOW).insertText).toBe(` ${FLOW}`);
  });

  it('completes inside quotes of a JSON blueprint without adding quotes', () => {
    const result = complete('{"version": 1, "entries": [{"model": "idp_fl|"}]}');
    expect(result.item(FLOW).insertText).toBe(FLOW);
    expect(result.replaced).toBe('idp_fl');
    expect(result.labels.some((label) => label.startsWith('!'))).toBe(false);
  });
});

describe('state values', () => {
  it('offers the model’s four states and nothing else (no tags)', () => {
    const result = complete(`entries:\n  - model: ${FLOW}\n    state: |`);
    expect(result.labels).toEqual(model(FLOW).stateValues);
    expect([...model(FLOW).stateValues].sort()).toEqual(['absent', 'created', 'must_created', 'present']);
  });
});

describe('fields of attrs and identifiers', () => {
  const flowAttrs = (lines: string, marker = '|') =>
    complete(`version: 1\nentries:\n  - model: ${FLOW}\n    id: flow\n    attrs:\n${lines}`, marker);

  it('offers the model’s fields', () => {
    expect(flowAttrs('      |').labels).toEqual(model(FLOW).fieldNames);
  });

  it('leaves out the fields present above and below', () => {
    const result = flowAttrs('      name: x\n      |\n      title: y\n    identifiers:\n      slug: s\n');
    expect(result.labels).toEqual(model(FLOW).fieldNames.filter((name) => name !== 'name' && name !== 'title'));
    expect(result.labels).toContain('slug');
  });

  it('offers the same fields under identifiers', () => {
    const result = complete(`entries:\n  - model: ${FLOW}\n    identifiers:\n      slug: s\n      |`);
    expect(result.labels).toEqual(model(FLOW).fieldNames.filter((name) => name !== 'slug'));
  });

  it('inserts by type: `name: ` for text, a choice for a short enum or a boolean', () => {
    const result = flowAttrs('      |');
    expect(result.item('name')).toMatchObject({ insertText: 'name: ', snippet: false, retrigger: true });
    const designations = field(FLOW, 'designation').enum as string[];
    expect(result.item('designation')).toMatchObject({
      insertText: `designation: \${1|${designations.join(',')}|}`,
      snippet: true,
    });
    expect(result.item('compatibility_mode').insertText).toBe('compatibility_mode: ${1|true,false|}');
  });

  it('inserts a block for a sequence field and for a mapping field', () => {
    const stage = 'idp_stages_identification.identificationstage';
    expect(field(stage, 'user_fields').type).toBe('array');
    const list = complete(`entries:\n  - model: ${stage}\n    attrs:\n      |`).item('user_fields');
    expect(list).toMatchObject({ insertText: 'user_fields:\n        - $0', snippet: true });
    const notification = 'idp_events.notification';
    expect(field(notification, 'event').type).toBe('object');
    const mapping = complete(`entries:\n  - model: ${notification}\n    attrs:\n      |`).item('event');
    expect(mapping.insertText).toBe('event:\n        $0');
  });

  it('documents a field with its description, type and constraints', () => {
    const docs = flowAttrs('      |').item('policy_engine_mode');
    expect(docs.detail).toBe('string');
    expect(docs.documentation).toContain(String(field(FLOW, 'policy_engine_mode').description));
    expect(docs.documentation).toContain('one of: `all`, `any`');
    const stage = 'idp_stages_authenticator_static.authenticatorstaticstage';
    const limit = complete(`entries:\n  - model: ${stage}\n    attrs:\n      |`).item('token_length');
    expect(limit.detail).toBe('integer');
    expect(limit.documentation).toContain('maximum: `100`');
  });

  it('offers the keys of a mapping field from its schema', () => {
    const notification = 'idp_events.notification';
    const event = field(notification, 'event').properties as Record<string, unknown>;
    const result = complete(`entries:\n  - model: ${notification}\n    attrs:\n      event:\n        |`);
    expect(result.labels).toEqual(Object.keys(event));
  });

  it('completes a half-typed field; a model written in another case still counts', () => {
    const result = flowAttrs('      name: x\n      desig|');
    expect(result.replaced).toBe('desig');
    expect(result.labels).toContain('designation');
    expect(complete(`entries:\n  - model: IDP_FLOWS.FLOW\n    attrs:\n      |`).labels).toEqual(model(FLOW).fieldNames);
  });

  it('offers no fields without a known model', () => {
    expect(complete('entries:\n  - model: idp_nothing.here\n    attrs:\n      |').labels).toEqual([]);
    expect(complete('entries:\n  - id: x\n    attrs:\n      |').labels).toEqual([]);
  });

  it('offers fields in a flow mapping, without the ones it has', () => {
    const result = complete(`entries:\n  - model: ${FLOW}\n    attrs: {name: x, |}`);
    expect(result.labels).toEqual(model(FLOW).fieldNames.filter((name) => name !== 'name'));
    expect(result.item('designation').insertText).toMatch(/^designation: /);
  });
});

describe('values after `field: `', () => {
  it('offers the enum of the field', () => {
    const result = complete(`entries:\n  - model: ${FLOW}\n    attrs:\n      designation: |`);
    expect(result.nonTags).toEqual(field(FLOW, 'designation').enum);
    expect(result.item('authentication').kind).toBe('value');
  });

  it('offers true and false for a boolean field, in a flow mapping too', () => {
    const block = complete(`entries:\n  - model: ${FLOW}\n    attrs:\n      compatibility_mode: |`);
    expect(block.nonTags).toEqual(['true', 'false']);
    expect(block.item('true').kind).toBe('keyword');
    const flow = complete(`entries:\n  - model: ${FLOW}\n    attrs: {compatibility_mode: |}`);
    expect(flow.nonTags).toEqual(['true', 'false']);
  });

  it('offers choices listed as strings and numbers once, as numbers; quotes strings YAML would read as numbers', () => {
    const totp = 'idp_stages_authenticator_totp.authenticatortotpstage';
    const source = `entries:\n  - model: ${totp}\n    attrs:\n      digits: |`;
    expect(field(totp, 'digits').enum).toEqual(['6', '8', 6, 8]);
    expect(complete(source).nonTags).toEqual(['6', '8']);
    // The release's own schema lists digits as the strings "6" and "8".
    const release = createLanguageService({ schema: withStringDigits(schema) }).index;
    expect(complete(source, '|', release).nonTags).toEqual(['"6"', '"8"']);
  });

  it('inside quotes: the bare value, no tags', () => {
    const result = complete(`entries:\n  - model: ${FLOW}\n    attrs:\n      designation: "auth|"`);
    expect(result.labels).toEqual(field(FLOW, 'designation').enum);
    expect(result.replaced).toBe('auth');
  });

  it('offers the item enum in a sequence field, and booleans for conditions', () => {
    const stage = 'idp_stages_identification.identificationstage';
    const items = (field(stage, 'user_fields').items as { enum: string[] }).enum;
    expect(complete(`entries:\n  - model: ${stage}\n    attrs:\n      user_fields:\n        - |`).nonTags).toEqual(
      items,
    );
    expect(complete(`entries:\n  - model: ${FLOW}\n    conditions:\n      - |`).nonTags).toEqual(['true', 'false']);
  });

  it('offers only tags for a free text field', () => {
    expect(complete(`entries:\n  - model: ${FLOW}\n    attrs:\n      name: |`).labels).toEqual(tagNames);
  });
});

describe('tags', () => {
  it('after `!` in a value: the 14 tags, replacing the `!`', () => {
    const result = complete(`entries:\n  - model: ${FLOW}\n    attrs:\n      name: !|`);
    expect(result.labels).toEqual(tagNames);
    expect(tagNames).toHaveLength(14);
    expect(result.replaced).toBe('!');
    for (const tag of blueprintTags) {
      const item = result.item(tag.name);
      expect(item.kind).toBe('tag');
      expect(item.insertText.startsWith(tag.name)).toBe(true);
      expect(item.documentation).toContain(tag.meaning);
      for (const form of tag.forms) expect(item.documentation).toContain(form);
    }
  });

  it('inserts the argument shapes as snippets', () => {
    const value = complete(`entries:\n  - model: ${FLOW}\n    conditions:\n      - !Co|`);
    expect(value.replaced).toBe('!Co');
    expect(value.item('!Condition')).toMatchObject({
      insertText: `!Condition [\${1|${conditionModes.join(',')}|}, \${2:arg}]`,
      snippet: true,
    });
    expect(value.item('!Format').insertText).toBe('!Format [${1:"%s"}, ${2:arg}]');
    expect(value.item('!Find').insertText).toBe('!Find [${1:app.model}, [${2:field}, ${3:value}]]');
    expect(value.item('!Enumerate').insertText).toBe('!Enumerate [${1:iterable}, ${2|SEQ,MAP|}, ${3:body}]');
    // Their argument is completed next: the list opens again.
    expect(value.item('!KeyOf')).toMatchObject({ insertText: '!KeyOf ', retrigger: true });
  });

  it('offers tags inside another tag’s arguments', () => {
    expect(complete('x: !Format ["%s", |]').labels).toEqual(tagNames);
  });
});

describe('`!KeyOf` ids', () => {
  const blueprint = (cursor: string) => `version: 1
entries:
  - model: ${FLOW}
    id: flow
    identifiers:
      slug: my-flow
  - model: idp_core.user
    id: admin
  - model: idp_flows.flowstagebinding
    id: binding
    identifiers:
      target: ${cursor}
  - model: idp_core.group
    id: later
`;

  it('offers the ids of the entries above: not its own, not those below', () => {
    const result = complete(blueprint('!KeyOf |'));
    // The flow first: it is what `target` refers to (nearest-first order is tested below).
    expect(result.labels).toEqual(['flow', 'admin']);
    expect(result.item('flow')).toMatchObject({ kind: 'reference', detail: `${FLOW} · slug: my-flow` });
    expect(result.item('admin').detail).toBe('idp_core.user');
  });

  it('replaces the typed part of the id, and works inside other tags', () => {
    expect(complete(blueprint('!KeyOf fl|')).replaced).toBe('fl');
    expect(complete(blueprint('!Format ["%s", !KeyOf |]')).labels).toEqual(['admin', 'flow']);
  });

  it('sees earlier named groups, lists a repeated id once and none in the first entry', () => {
    const groups = `entries:
  first:
    - model: ${FLOW}
      id: same
    - model: ${FLOW}
      id: same
  second:
    - model: idp_core.user
      attrs:
        groups:
          - !KeyOf |
`;
    expect(complete(groups).labels).toEqual(['same']);
    expect(complete(`entries:\n  - model: ${FLOW}\n    id: a\n    attrs:\n      name: !KeyOf |`).labels).toEqual([]);
  });
});

describe('`!KeyOf` ids of the models a field refers to', () => {
  // Nearest first, these would come as group, stage, other_flow, flow.
  const blueprint = (model: string, cursor: string) => `version: 1
entries:
  - model: ${FLOW}
    id: flow
    identifiers:
      slug: my-flow
  - model: ${FLOW}
    id: other_flow
  - model: idp_stages_dummy.dummystage
    id: stage
  - model: idp_core.group
    id: group
  - model: ${model}
    identifiers:
${cursor}
`;
  const binding = (cursor: string) => blueprint('idp_flows.flowstagebinding', cursor);

  it('offers the flows first for the target of a flow stage binding, nearest first among them', () => {
    const result = complete(binding('      target: !KeyOf |'));
    expect(result.labels).toEqual(['other_flow', 'flow', 'group', 'stage']);
    expect(result.item('flow')).toMatchObject({
      detail: `${FLOW} · slug: my-flow`,
      documentation: `Entry 1: \`${FLOW}\`, a model this field refers to`,
    });
    expect(result.item('group').documentation).toBe('Entry 4: `idp_core.group`');
  });

  it('offers the stage first for its stage, also in a flow mapping', () => {
    expect(complete(binding('      stage: !KeyOf |')).labels).toEqual(['stage', 'group', 'other_flow', 'flow']);
    expect(complete(binding('      {order: 1, stage: !KeyOf |}')).labels[0]).toBe('stage');
  });

  it('keeps nearest first where the field names no model, the model is unknown or the id goes to another tag', () => {
    const nearestFirst = ['group', 'stage', 'other_flow', 'flow'];
    expect(complete(blueprint('idp_endpoints.deviceuserbinding', '      target: !KeyOf |')).labels).toEqual(
      nearestFirst,
    );
    expect(complete(blueprint('idp_flows.flowstagebindng', '      target: !KeyOf |')).labels).toEqual(nearestFirst);
    expect(complete(binding('      target: !Format ["%s", !KeyOf |]')).labels).toEqual(nearestFirst);
  });

  it('ranks the mappings first for an item of property_mappings', () => {
    const mappings = (cursor: string) => `entries:
  - model: idp_providers_oauth2.scopemapping
    id: scope
  - model: ${FLOW}
    id: flow
  - model: idp_providers_oauth2.oauth2provider
    attrs:
      property_mappings:
${cursor}
`;
    expect(complete(mappings('        - !KeyOf |')).labels).toEqual(['scope', 'flow']);
    expect(complete(mappings('        - !KeyOf scope\n        - !KeyOf |')).labels).toEqual(['scope', 'flow']);
  });
});

describe('`!Context` keys', () => {
  const withContext = (cursor: string) =>
    `context:\n  username: admin\n  mapping:\n    key1: value\n  group/name: x\nentries:\n  - model: ${FLOW}\n    attrs:\n      name: ${cursor}\n`;

  it('offers the top-level keys of `context` (not nested ones)', () => {
    const result = complete(withContext('!Context |'));
    expect(result.labels).toEqual(['username', 'mapping', 'group/name']);
    expect(result.item('username')).toMatchObject({ kind: 'variable', detail: 'admin' });
  });

  it('offers them as the first item of the sequence form', () => {
    expect(complete(withContext('!Context [|, default]')).nonTags).toEqual(['username', 'mapping', 'group/name']);
  });

  it('offers none without a context', () => {
    expect(complete(`entries:\n  - model: ${FLOW}\n    attrs:\n      name: !Context |`).labels).toEqual([]);
  });
});

describe('`!Find` and `!FindObject`', () => {
  const inAttrs = (value: string) => `entries:\n  - model: idp_core.user\n    attrs:\n      name: ${value}\n`;

  it('offers models as the first item', () => {
    expect(complete(inAttrs('!Find [|]')).nonTags).toHaveLength(index.modelNames.length);
    expect(complete(inAttrs('!FindObject [idp_fl|]')).labels[0]).toBe(FLOW);
  });

  it('offers the model’s fields as the field of a pair, and the field’s values after it', () => {
    expect(complete(inAttrs(`!Find [${FLOW}, [|]]`)).nonTags).toEqual(model(FLOW).fieldNames);
    expect(complete(inAttrs(`!FindObject [${FLOW}, [slug, x], [designation, |]]`)).nonTags).toEqual(
      field(FLOW, 'designation').enum,
    );
  });

  it('reads a model written in another case over several unclosed lines', () => {
    const result = complete(
      `entries:\n  - model: idp_core.user\n    attrs:\n      name:\n          !Find [\n              idp_flows.Flow,\n              [|`,
    );
    expect(result.nonTags).toEqual(model(FLOW).fieldNames);
  });

  it('offers no fields for an unknown model or outside a pair', () => {
    expect(complete(inAttrs('!Find [idp_nothing.here, [|]]')).nonTags).toEqual([]);
    expect(complete(inAttrs(`!Find [${FLOW}, |]`)).nonTags).toEqual([]);
  });
});

describe('labels of metadata', () => {
  it('offers the known labels not yet written, with a quoted value', () => {
    expect(knownLabels).toEqual([
      'blueprints.idp.example/instantiate',
      'blueprints.idp.example/system',
      'blueprints.idp.example/description',
      'blueprints.idp.example/generated',
    ]);
    const result = complete('metadata:\n  name: x\n  labels:\n    blueprints.idp.example/system: "true"\n    |');
    expect(result.labels).toEqual(knownLabels.filter((label) => label !== 'blueprints.idp.example/system'));
    expect(result.item('blueprints.idp.example/instantiate')).toMatchObject({
      insertText: 'blueprints.idp.example/instantiate: "$1"',
      snippet: true,
    });
  });
});

describe('permissions', () => {
  it('offers the model’s permission codenames after `permission: `', () => {
    const result = complete(`entries:\n  - model: ${FLOW}\n    permissions:\n      - permission: |`);
    expect(result.nonTags).toEqual(model(FLOW).permissionCodenames);
    expect(model(FLOW).permissionCodenames.length).toBeGreaterThan(0);
  });

  it('offers the keys of a permission item after `- `, and no codenames without a model', () => {
    expect(complete(`entries:\n  - model: ${FLOW}\n    permissions:\n      - |`).labels).toEqual([
      'permission',
      'user',
      'role',
    ]);
    expect(complete(`entries:\n  - id: x\n    permissions:\n      - permission: |`).nonTags).toEqual([]);
  });
});

describe('where nothing fits', () => {
  it.each([
    ['a comment after a value', `entries:\n  - model: ${FLOW} # the flow |`, '|'],
    ['a comment line', `# Login flow|\nversion: 1\n`, '|'],
    ['an indented comment line', `entries:\n  - model: ${FLOW}\n    # |`, '|'],
    ['a block scalar', `entries:\n  - model: ${FLOW}\n    attrs:\n      name: |\n        if x:\n          ¦`, '¦'],
    ['after a complete value', `entries:\n  - model: ${FLOW}\n    attrs:\n      name: some text |`, '|'],
    ['after a closed flow sequence', 'x: [a, b] |', '|'],
    ['in a string quoted on an earlier line', 'x: "a\n  b|', '|'],
  ])('offers nothing in %s', (_name, source, marker) => {
    const result = complete(source, marker);
    expect(result.items).toEqual([]);
  });
});

/** Completion at `offset` must not throw, and must replace one line around the cursor. */
function expectSane(text: string, root: ReturnType<typeof parseBlueprint>['root'], offset: number): number {
  const { items, range } = doComplete(text, root, offset, index);
  const [start, end] = range;
  if (
    !(0 <= start && start <= offset && offset <= end && end <= text.length) ||
    text.slice(start, end).includes('\n')
  ) {
    expect.fail(`range ${start}-${end} at ${offset} of:\n${text}`);
  }
  return items.length;
}

describe('robustness', () => {
  it('odd texts: every offset', () => {
    const odd = [
      '',
      '\n',
      '\n\nx',
      '\r\nversion: 1\r\n',
      '-',
      ':',
      '!',
      '[',
      '{',
      '"',
      "'",
      '#',
      '|',
      '- - - ',
      'x: {a: [b, {c: ',
      '? a\n: b',
      '---\nversion: 1\n...\n',
      '\u00a0😀: x',
    ];
    for (const text of odd) {
      const { root } = parseBlueprint(text);
      for (let offset = 0; offset <= text.length; offset++) expectSane(text, root, offset);
    }
  });

  it('every offset of every corpus file', () => {
    let offered = 0;
    for (const { text } of corpus) {
      const { root } = parseBlueprint(text);
      for (let offset = 0; offset <= text.length; offset++) offered += expectSane(text, root, offset) > 0 ? 1 : 0;
    }
    expect(offered).toBeGreaterThan(0);
  });

  it('300 seeded mutations of the corpus, at 60 offsets each', () => {
    const random = randomSource(20251122);
    for (let run = 0; run < 300; run++) {
      let text = random.pick(corpus).text;
      for (let edit = 0; edit < 2; edit++) text = mutate(text, random);
      const { root } = parseBlueprint(text);
      for (let probe = 0; probe < 60; probe++) expectSane(text, root, Math.floor(random.next() * (text.length + 1)));
    }
  });
});
