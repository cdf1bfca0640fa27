import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_FILE } from '../../scripts/blueprint-schema/generate.ts';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

/** An entry of a model with identifiers, for the documents below. */
const group = { model: 'idp_core.group', identifiers: { name: 'admins' } };

/** A valid blueprint with `change` applied on top (undefined deletes a key). */
function blueprint(change: Record<string, unknown> = {}): Record<string, unknown> {
  const document: Record<string, unknown> = { version: 1, metadata: { name: 'test' }, entries: [group], ...change };
  for (const [key, value] of Object.entries(change)) if (value === undefined) delete document[key];
  return document;
}

describe('the generated schema under Ajv (draft-07)', () => {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  let validate: ReturnType<Ajv['compile']>;

  beforeAll(() => {
    validate = ajv.compile(schema);
  });

  it('declares draft-07 and the release title', () => {
    expect(schema.$schema).toBe(`${DRAFT_07}#`);
    expect(schema.title).toBe('idp 2025.12.4 Blueprint schema');
    expect(schema.$id).toBe('https://schemas.idp.example/blueprint/2025.12.4.json');
  });

  it('is valid against the draft-07 meta-schema', () => {
    const metaSchema = ajv.getSchema(DRAFT_07);
    expect(metaSchema).toBeDefined();
    expect(metaSchema!(schema), JSON.stringify(metaSchema!.errors)).toBe(true);
  });

  it.each([
    ['a minimal blueprint', blueprint()],
    ['no metadata', blueprint({ metadata: undefined })],
    ['named groups of entries', blueprint({ entries: { base: [group], extra: [] } })],
    [
      'string labels and a free context',
      blueprint({ metadata: { name: 'x', labels: { a: 'true' } }, context: { n: 1 } }),
    ],
    [
      'every entry key',
      blueprint({ entries: [{ ...group, id: 'g', state: 'absent', conditions: [true], attrs: {} }] }),
    ],
    [
      'granted permissions',
      blueprint({ entries: [{ ...group, permissions: [{ permission: 'view_group', user: 1 }] }] }),
    ],
    [
      'a Kerberos source administered by MIT kadmin',
      blueprint({
        entries: [
          { model: 'idp_sources_kerberos.kerberossource', identifiers: { slug: 'krb' }, attrs: { kadmin_type: 'MIT' } },
        ],
      }),
    ],
    [
      'the meta model without identifiers',
      blueprint({ entries: [{ model: 'idp_blueprints.metaapplyblueprint', attrs: { identifiers: { name: 'b' } } }] }),
    ],
  ])('accepts %s', (_name, document) => {
    expect(validate(document), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });

  it.each([
    ['a missing version', blueprint({ version: undefined })],
    ['missing entries', blueprint({ entries: undefined })],
    ['an entry without model', blueprint({ entries: [{ identifiers: { name: 'admins' } }] })],
    ['an entry without identifiers', blueprint({ entries: [{ model: 'idp_core.group', attrs: { name: 'a' } }] })],
    ['a state outside the four', blueprint({ entries: [{ ...group, state: 'gone' }] })],
    ['a conditions item that is not boolean', blueprint({ entries: [{ ...group, conditions: ['yes'] }] })],
    ['a label value that is not a string', blueprint({ metadata: { name: 'x', labels: { a: true } } })],
    ['metadata without name', blueprint({ metadata: { labels: {} } })],
    ['an unknown model', blueprint({ entries: [{ model: 'idp_core.nothing', identifiers: {} }] })],
    [
      'a permission of another model',
      blueprint({ entries: [{ ...group, permissions: [{ permission: 'view_flow' }] }] }),
    ],
    ['a group that is not a list', blueprint({ entries: { base: group } })],
    [
      'a Kerberos kadmin_type of other (refused since 2025.12.4)',
      blueprint({
        entries: [
          {
            model: 'idp_sources_kerberos.kerberossource',
            identifiers: { slug: 'krb' },
            attrs: { kadmin_type: 'other' },
          },
        ],
      }),
    ],
  ])('rejects %s', (_name, document) => {
    expect(validate(document)).toBe(false);
  });

  describe('token_length of the static authenticator stage (at most 100)', () => {
    const stage = (tokenLength: number) =>
      blueprint({
        entries: [
          {
            model: 'idp_stages_authenticator_static.authenticatorstaticstage',
            identifiers: { name: 'static' },
            attrs: { token_length: tokenLength },
          },
        ],
      });

    it('accepts 100', () => {
      expect(validate(stage(100))).toBe(true);
    });

    it('rejects 101', () => {
      expect(validate(stage(101))).toBe(false);
    });
  });
});
