import { describe, expect, it } from 'vitest';
import { loadBlueprintSource } from '../../scripts/blueprint-schema/blueprint-source.ts';
import { parseFieldNotation } from '../../scripts/blueprint-schema/field-notation.ts';
import { SCHEMA_SOURCE_DIR } from '../../scripts/blueprint-schema/generate.ts';
import { sourceCopy } from './source-copy.ts';

const rules = loadBlueprintSource(SCHEMA_SOURCE_DIR).fieldRules;
const matches = (rule: string, value: string): boolean =>
  new RegExp(`^(?:${rules.get(rule)!.pattern})$`, 'u').test(value);

describe('field-rules.yaml', () => {
  // The grammar of the service's duration strings: pairs split at ';' and '=', keys in any case,
  // unknown keys skipped, values read by float(), at least one known key.
  it.each([
    ['hours=1;minutes=2', true],
    ['Hours=12', true],
    ['weeks=-1;days=.5;seconds=1e3', true],
    ['minutes= 30 ', true],
    ['hours=1_000', true],
    ['hours=1;unknown=whatever', true],
    ['12h', false],
    ['hours=12;', false],
    ['hours:12', false],
    ['hours=a', false],
    ['hour=1', false],
    [' hours=1', false],
    ['hours=1=2', false],
  ])('duration %j: %s', (value, valid) => {
    expect(matches('duration', value)).toBe(valid);
  });

  it.each([
    ['slug', 'default-authentication_flow', 'default.authentication'],
    ['user-path', 'users/contractors/eu', 'users//contractors'],
    ['http-url', 'http://localhost:9000/path?q=1', 'localhost:9000'],
    ['http-url', 'HTTPS://user:secret@app.example.com', 'https://app.example.com /x'],
    ['launch-url', 'blank://blank', 'app.example.com'],
    ['ldap-uris', 'ldap://dc1.example.com, ldaps://dc2.example.com:636', 'ldap://dc1.example.com;ldap://dc2'],
  ])('%s keeps %j and refuses %j', (rule, valid, invalid) => {
    expect(matches(rule, valid)).toBe(true);
    expect(matches(rule, invalid)).toBe(false);
  });

  it('a field notation takes a rule: its anchored pattern and x-rule, optional with rule-or-empty', () => {
    expect(parseFieldNotation('string! rule slug', new Map(), rules)).toEqual({
      type: 'string',
      minLength: 1,
      pattern: '^[-a-zA-Z0-9_]+$',
      'x-rule': { name: 'slug', says: rules.get('slug')!.says, example: 'my-application' },
    });
    const optional = parseFieldNotation('string rule-or-empty http-url', new Map(), rules);
    expect(new RegExp(String(optional.pattern), 'u').test('')).toBe(true);
    expect(new RegExp(String(optional.pattern), 'u').test('app.example.com')).toBe(false);
  });

  it.each([
    ['string rule slg', 'unknown rule "slg" (see field-rules.yaml)'],
    ['integer rule slug', '"rule" applies to strings, not to integer'],
    ['string pattern ^a$ rule slug', '"pattern" or "rule" given twice'],
  ])('refuses the notation %j', (notation, message) => {
    expect(() => parseFieldNotation(notation, new Map(), rules)).toThrow(message);
  });
});

describe('a bad field-rules.yaml', () => {
  const { directory, write } = sourceCopy();
  const rule = (body: string) => () => {
    write('field-rules.yaml', `slug:\n  service: a validator\n${body}`);
    return loadBlueprintSource(directory);
  };

  it.each([
    ['an example the pattern refuses', "  says: a slug\n  example: a.b\n  pattern: '[a-z]+'\n", 'field-rules.yaml: slug.example: does not match the pattern'], // prettier-ignore
    ['a wrong value the pattern accepts', "  says: a slug\n  example: ab\n  wrong: [abc]\n  pattern: '[a-z]+'\n", 'field-rules.yaml: slug.wrong[0]: "abc" matches the pattern'], // prettier-ignore
    ['a part used before it is defined', "  says: a slug\n  example: ab\n  pattern: '{word}'\n", 'field-rules.yaml: slug.pattern: {word} is no earlier part'], // prettier-ignore
    ['a pattern that does not compile', "  says: a slug\n  example: ab\n  pattern: '[a-z'\n", 'field-rules.yaml: slug.pattern: invalid'], // prettier-ignore
  ])('stops the generator on %s', (_case, body, message) => {
    expect(rule(body)).toThrow(message);
  });
});
