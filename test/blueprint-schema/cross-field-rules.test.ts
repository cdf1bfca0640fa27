import { describe, expect, it } from 'vitest';
import { generateBlueprintSchemaText } from '../../scripts/blueprint-schema/generate.ts';
import { sourceCopy } from './source-copy.ts';

type Definitions = Record<string, Record<string, unknown>>;

describe('cross-field-rules.yaml in the generated schema', () => {
  const { definitions } = JSON.parse(generateBlueprintSchemaText()) as { definitions: Definitions };

  it("puts a model's rules on its entry definition, as the source writes them", () => {
    expect(definitions['entry_idp_policies.policybinding']!['x-cross-field-rules']).toEqual([
      {
        exactly_one_of: ['policy', 'group', 'user'],
        message: 'A policy binding binds exactly one of policy, group and user.',
        service: expect.stringContaining('PolicyBindingSerializer.validate'),
      },
    ]);
    expect(definitions['entry_idp_providers_proxy.proxyprovider']!['x-cross-field-rules']).toEqual([
      expect.objectContaining({ when: { mode: ['proxy'] }, defaults: { mode: 'proxy' }, requires: ['internal_host'] }),
    ]);
  });

  it('gives models without rules none', () => {
    expect(definitions['entry_idp_flows.flow']).not.toHaveProperty('x-cross-field-rules');
  });
});

describe('a bad cross-field-rules.yaml', () => {
  const { directory, write } = sourceCopy();
  const generateWith = (row: string) => () => {
    write('cross-field-rules.yaml', `- model: idp_policies.policybinding\n  message: m\n  service: s\n${row}`); // prettier-ignore
    return generateBlueprintSchemaText(directory);
  };

  it.each([
    [
      'no check',
      '  when: { negate: true }\n',
      'give exactly one of exactly_one_of, at_least_one_of, requires, requires_keys',
    ],
    ['two checks', '  requires: [policy]\n  requires_keys: [group]\n', 'give exactly one of'],
    ['a field the model does not have', '  exactly_one_of: [policy, groups]\n', 'cross-field-rules.yaml: idp_policies.policybinding[0]: idp_policies.policybinding has no field "groups"'], // prettier-ignore
    ['an unknown key', '  exactly_one: [policy]\n', 'unknown key'],
  ])('stops the generator on %s', (_case, row, message) => {
    expect(generateWith(row)).toThrow(message);
  });

  it('stops the generator on a condition value that is none of the choices', () => {
    write('cross-field-rules.yaml', '- model: idp_providers_proxy.proxyprovider\n  message: m\n  service: s\n  when: { mode: reverse }\n  requires: [internal_host]\n'); // prettier-ignore
    expect(() => generateBlueprintSchemaText(directory)).toThrow('"reverse" is none of the values of mode');
  });

  it('stops the generator on `each` naming a field that is no list of mappings, and on a field its items lack', () => {
    const row = (each: string, field: string) => `- model: idp_providers_oauth2.oauth2provider\n  message: m\n  service: s\n  each: ${each}\n  regex: [${field}]\n`; // prettier-ignore
    write('cross-field-rules.yaml', row('client_id', 'url'));
    expect(() => generateBlueprintSchemaText(directory)).toThrow('idp_providers_oauth2.oauth2provider.client_id is no list of mappings'); // prettier-ignore
    write('cross-field-rules.yaml', row('redirect_uris', 'uri'));
    expect(() => generateBlueprintSchemaText(directory)).toThrow('idp_providers_oauth2.oauth2provider.redirect_uris[] has no field "uri"'); // prettier-ignore
  });

  it('stops the generator on a model models.yaml does not have', () => {
    write('cross-field-rules.yaml', '- model: idp_policies.binding\n  message: m\n  service: s\n  requires: [policy]\n'); // prettier-ignore
    expect(() => generateBlueprintSchemaText(directory)).toThrow('cross-field-rules.yaml: idp_policies.binding[0]: no such model in models.yaml'); // prettier-ignore
  });
});
