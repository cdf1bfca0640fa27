import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { doHover } from '../../language-server/src/service/hover/hover.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { randomSource } from '../../server/demo/random-source.ts';
import { corpus, mutate } from './corpus-files.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object;
const { index } = createLanguageService({ schema });

/** `‸` marks the cursor (a `|` would be YAML); returns the hover and the text it covers. */
function hover(source: string, at = index) {
  const offset = source.indexOf('‸');
  if (offset < 0) throw new Error(`no cursor in ${source}`);
  const text = source.replace('‸', '');
  const found = doHover(parseBlueprint(text).root, offset, at, text);
  return found && { markdown: found.markdown, covers: text.slice(found.range[0], found.range[1]) };
}

const flow = (body: string) => `version: 1
entries:
  - model: idp_flows.flow
    id: flow
    identifiers:
      slug: my-flow
${body}`;

describe('hover on fields', () => {
  it('a field key: its type, enum values and the model it belongs to', () => {
    const found = hover(flow('    attrs:\n      desig‸nation: authentication\n'));
    expect(found?.covers).toBe('designation');
    expect(found?.markdown).toContain('`attrs.designation` in `idp_flows.flow`');
    expect(found?.markdown).toContain('- A string');
    expect(found?.markdown).toContain('One of: `authentication`, `authorization`, `invalidation`, `enrollment`');
  });

  it("a field key with a description of its own: the model's description of the field", () => {
    const found = hover(flow('    attrs:\n      designa‸tion: enrollment\n'));
    expect(found?.covers).toBe('designation');
    expect(found?.markdown).toContain('What the flow is for: authentication (log in), authorization');
    expect(found?.markdown).toContain('The service also looks flows up by designation');
  });

  it('a field value: the same facts, over the value', () => {
    const found = hover(flow('    attrs:\n      designation: authen‸tication\n'));
    expect(found?.covers).toBe('authentication');
    expect(found?.markdown).toContain('One of: `authentication`');
  });

  it('a value of a long enum: every allowed value, as the short problem message promises', () => {
    const event = `entries:\n  - model: idp_events.event\n    identifiers:\n      action: lo‸gn\n`;
    const markdown = hover(event)?.markdown ?? '';
    const action = index.lookupModel('idp_events.event').model!.fields!.properties as Record<
      string,
      { enum: string[] }
    >;
    expect(action.action!.enum.length).toBeGreaterThan(5);
    expect(markdown).toContain(`One of: ${action.action!.enum.map((value) => `\`${value}\``).join(', ')}`);
    expect(markdown).not.toContain('more)');
    const permissions = `entries:\n  - model: idp_rbac.role\n    identifiers:\n      name: r\n    attrs:\n      permis‸sions: []\n`;
    expect(hover(permissions)?.markdown).not.toContain('more)');
  });

  it("an identifier: the schema's description", () => {
    const found = hover(flow('').replace('slug: my-flow', 'sl‸ug: my-flow'));
    expect(found?.markdown).toContain('`identifiers.slug` in `idp_flows.flow`');
    expect(found?.markdown).toContain('- Not empty');
    expect(found?.markdown).toContain('URL-safe short name, unique per model');
  });

  it('bounds, lengths, format and pattern', () => {
    const staticStage = `entries:\n  - model: idp_stages_authenticator_static.authenticatorstaticstage\n    attrs:\n      token_len‸gth: 6\n`;
    expect(hover(staticStage)?.markdown).toContain('- At most 100');
    const user = `entries:\n  - model: idp_core.user\n    attrs:\n      em‸ail: a@b.example\n`;
    expect(hover(user)?.markdown).toMatch(/- Format `email`\n- At most 254 characters/);
    const token = `entries:\n  - model: idp_core.token\n    identifiers:\n      identi‸fier: t\n`;
    expect(hover(token)?.markdown).toContain(
      "- Must be a slug: letters, digits, '-' and '_' only, e.g. `my-application`",
    );
    const stage = `entries:\n  - model: idp_stages_user_login.userloginstage\n    attrs:\n      session_dur‸ation: hours=1\n`;
    expect(hover(stage)?.markdown).toContain('e.g. `hours=1;minutes=30`');
    expect(hover(stage)?.markdown).not.toContain('Matches');
  });

  it('a pattern without a rule of the service, as written', () => {
    const copy = structuredClone(schema) as { definitions: Record<string, { properties: Record<string, object> }> };
    copy.definitions['model_idp_core.token']!.properties.identifier = { type: 'string', pattern: '^[a-z]+$' };
    const token = `entries:\n  - model: idp_core.token\n    identifiers:\n      identi‸fier: t\n`;
    expect(hover(token, createLanguageService({ schema: copy }).index)?.markdown).toContain('- Matches `^[a-z]+$`');
  });

  it('a nested field, through a sequence of mappings', () => {
    const text = `entries:
  - model: idp_providers_oauth2.oauth2provider
    identifiers: {name: p}
    attrs:
      redirect_uris:
        - matching_mode: str‸ict
          url: https://app.example/cb
`;
    const found = hover(text);
    expect(found?.covers).toBe('strict');
    expect(found?.markdown).toContain(
      '`attrs.redirect_uris[0].matching_mode` in `idp_providers_oauth2.oauth2provider`',
    );
    expect(found?.markdown).toContain('One of: `strict`, `regex`');
  });

  it('nothing on an unknown field, nor between the items of a mapping', () => {
    expect(hover(flow('    attrs:\n      colo‸ur: red\n'))).toBeUndefined();
    expect(hover(flow('    attrs:\n      name: x\n‸      title: y\n'))).toBeUndefined();
  });
});

describe('hover on the model', () => {
  it("a model's summary: app, description, fields, identifiers, permissions", () => {
    const found = hover(flow('').replace('model: idp_flows.flow', 'model: idp_flows.f‸low'));
    expect(found?.covers).toBe('idp_flows.flow');
    expect(found?.markdown).toContain('`idp_flows.flow` — a model of the app `idp_flows`');
    expect(found?.markdown).toContain('An ordered set of stages a user goes through');
    expect(found?.markdown).toContain('- 10 fields: `name`, `slug`, `title`, `designation`');
    expect(found?.markdown).toContain('- Identifiers required');
    expect(found?.markdown).toContain('- 8 permission codenames');
  });

  it('the meta model needs no identifiers', () => {
    const found = hover('entries:\n  - model: idp_blueprints.metaapply‸blueprint\n');
    expect(found?.markdown).toContain('- Identifiers not required');
  });

  it('a case-only mismatch still finds the model, and says so', () => {
    const found = hover('entries:\n  - model: IDP_flows.F‸low\n');
    expect(found?.markdown).toContain('`idp_flows.flow` — a model of the app');
    expect(found?.markdown).toContain(
      'Written `IDP_flows.Flow`: the app label is case-sensitive, so the service finds no model.',
    );
    const modelPart = hover('entries:\n  - model: idp_flows.F‸low\n');
    expect(modelPart?.markdown).toContain('Written `idp_flows.Flow`: the service lowercases the model part.');
  });

  it('an unknown model: a note with the nearest names', () => {
    const found = hover('entries:\n  - model: idp_flows.fl‸wo\n');
    expect(found?.markdown).toBe(
      '`idp_flows.flwo`: no model of this name in idp 2025.12.4 Blueprint schema. Did you mean `idp_flows.flow`?',
    );
  });
});

describe('hover on entry and top-level keys', () => {
  it('state: the allowed values, the default and the description', () => {
    const found = hover(flow('    sta‸te: present\n'));
    expect(found?.covers).toBe('state');
    expect(found?.markdown).toContain('One of: `absent`, `created`, `must_created`, `present`');
    expect(found?.markdown).toContain('- Default: `present`');
    expect(found?.markdown).toContain('absent: Delete the object if it exists');
  });

  it('conditions and permissions, and a permission codename', () => {
    expect(hover(flow('    condi‸tions: [true]\n'))?.markdown).toContain('The entry is applied only when every item');
    const permission = hover(flow('    permissions:\n      - permission: view_fl‸ow\n        role: r\n'));
    expect(permission?.markdown).toContain('`permissions[0].permission` in `idp_flows.flow`');
    expect(permission?.markdown).toContain('`view_flow`');
  });

  it('an entry key of an unknown model: the shared description only', () => {
    const found = hover('entries:\n  - model: nope.nope\n    attr‸s: {}\n');
    expect(found?.markdown).toBe(
      '`attrs`\n\nFields to set on the object. Only the fields given are written; others keep their current or default values.',
    );
  });

  it('top-level keys, nested metadata keys, and entries with its two forms', () => {
    expect(hover('vers‸ion: 1\n')?.markdown).toContain('- A whole number\n- Default: `1`');
    expect(hover('metadata:\n  lab‸els: {}\n')?.markdown).toContain('`metadata.labels`');
    const entries = hover('entr‸ies: []\n');
    expect(entries?.markdown).toContain('- A sequence or a mapping');
    expect(entries?.markdown).toContain('The objects to declare.');
  });
});

describe('hover on tags', () => {
  it('on the tag itself: its meaning, forms and shape', () => {
    const found = hover(flow('    attrs:\n      title: !E‸nv [TITLE, Login]\n'));
    expect(found?.covers).toBe('!Env [TITLE, Login]');
    expect(found?.markdown).toContain('**`!Env`** — The value of an environment variable');
    expect(found?.markdown).toContain('- `!Env NAME`\n- `!Env [NAME, default]`');
    expect(found?.markdown).toContain('Takes a scalar or a sequence of 2 items ([name, default]).');
  });

  it('inside arguments: the innermost tag', () => {
    const found = hover(flow('    attrs:\n      title: !Format ["%s!", !Env NA‸ME]\n'));
    expect(found?.covers).toBe('!Env NAME');
    expect(hover(flow('    attrs:\n      title: !Format ["%‸s!", !Env NAME]\n'))?.markdown).toContain('`!Format`');
  });

  it('!KeyOf: the target entry above, with its model, identifiers and line', () => {
    const text = flow(`  - model: idp_flows.flowstagebinding
    identifiers:
      target: !KeyOf fl‸ow
      order: 10
`);
    const found = hover(text);
    expect(found?.covers).toBe('!KeyOf flow');
    expect(found?.markdown).toContain('The primary key of the object created by an earlier entry');
    expect(found?.markdown).toContain(
      'Refers to the entry at line 3: model `idp_flows.flow`, identifiers `slug=my-flow`.',
    );
  });

  it('!KeyOf across named groups', () => {
    const text = `entries:
  flows:
    - model: idp_flows.flow
      id: login
      identifiers: {slug: login}
  bindings:
    - model: idp_flows.flowstagebinding
      identifiers: {target: !KeyOf lo‸gin, order: 1}
`;
    expect(hover(text)?.markdown).toContain(
      'Refers to the entry at line 3: model `idp_flows.flow`, identifiers `slug=login`.',
    );
  });

  it('!KeyOf to an id defined below, or nowhere: a plain note', () => {
    const later = `entries:
  - model: idp_flows.flowstagebinding
    identifiers: {target: !KeyOf fl‸ow, order: 1}
  - model: idp_flows.flow
    id: flow
    identifiers: {slug: s}
`;
    expect(hover(later)?.markdown).toContain(
      'No entry above defines `flow`. The entry at line 4 is not above it, and !KeyOf only sees entries above.',
    );
    expect(hover(flow('    attrs:\n      name: !KeyOf miss‸ing\n'))?.markdown).toMatch(
      /No entry above defines `missing`\.$/,
    );
  });
});

describe('hover never throws', () => {
  it('outside the text, without a tree, on a root that is not a mapping', () => {
    const text = flow('');
    const { root } = parseBlueprint(text);
    expect(doHover(root, -1, index, text)).toBeUndefined();
    expect(doHover(root, text.length + 5, index, text)).toBeUndefined();
    expect(doHover(undefined, 0, index, '')).toBeUndefined();
    expect(hover('- a‸\n- b\n')).toBeUndefined();
  });

  /** Hovers at every offset; each range is inside the text and contains the offset. */
  function hoverEverywhere(text: string, label: string): number {
    const { root } = parseBlueprint(text);
    let shown = 0;
    for (let offset = 0; offset <= text.length; offset++) {
      const found = doHover(root, offset, index, text);
      if (!found) continue;
      shown++;
      const [start, end] = found.range;
      if (!(0 <= start && start <= offset && offset <= end && end <= text.length)) {
        expect.fail(`${label}: range ${start}-${end} for offset ${offset} of ${text.length}`);
      }
      if (found.markdown.trim() === '') expect.fail(`${label}: empty hover at ${offset}`);
    }
    return shown;
  }

  it.each(corpus.map((file) => [file.name, file.text]))('at every offset of %s', (name, text) => {
    const shown = hoverEverywhere(text, name);
    if (text.includes('model:')) expect(shown).toBeGreaterThan(0);
  });

  it('at every offset of 300 seeded mutations of the corpus', () => {
    const random = randomSource(7331);
    for (let run = 0; run < 300; run++) {
      let text = random.pick(corpus).text;
      for (let edits = 1 + Math.floor(random.next() * 3); edits > 0; edits--) text = mutate(text, random);
      hoverEverywhere(text, `mutation ${run}`);
    }
  });
});
