import { describe, expect, it } from 'vitest';
import { isBlueprintText } from '../../vscode-extension/src/blueprint-detection.ts';
import { isBlueprintDocument } from '../../vscode-extension/src/blueprint-files.ts';
import { corpus } from '../language-server/corpus-files.ts';

describe('isBlueprintText', () => {
  it.each([
    ['the usual order', 'version: 1\nmetadata:\n  name: x\nentries:\n  - model: idp_core.user\n'],
    ['metadata first', 'metadata:\n  name: x\nversion: 1\nentries: []\n'],
    ['only entries', 'entries:\n- model: idp_core.user\n'],
    ['context first, entries as named groups', 'context:\n  a: 1\nentries:\n  users:\n    - model: idp_core.user\n'],
    [
      'comments, a directive and a document marker before',
      '# Demo\n%YAML 1.2\n---\n\n# more\nversion: 1\nentries: []\n',
    ],
    ['CRLF line ends', 'version: 1\r\nentries: []\r\n'],
    ['quoted keys', '"version": 1\n\'entries\': []\n'],
    [
      'a blueprint schema modeline',
      '# yaml-language-server: $schema=https://schemas.example/blueprints/schema.json\nfoo: 1\n',
    ],
    ['a relative blueprint schema modeline', '# yaml-language-server: $schema=../schemas/blueprint.schema.json\n'],
  ])('takes %s', (_case, text) => {
    expect(isBlueprintText(text)).toBe(true);
  });

  it.each([
    ['an empty text', ''],
    ['a compose file', 'version: "3.8"\nservices:\n  web:\n    image: nginx\n'],
    ['blueprint keys without entries', 'version: 1\nmetadata:\n  name: x\n'],
    ['entries that are not a top-level key', 'spec:\n  version: 1\n  entries: []\n'],
    ['another key first', 'name: x\nversion: 1\nentries: []\n'],
    ['a root sequence', '- version: 1\n  entries: []\n'],
    ['entries only in a comment', 'version: 1\n# entries:\n'],
    ['entries only in a second document', 'version: 1\n---\nentries: []\n'],
    [
      'a modeline naming another schema',
      '# yaml-language-server: $schema=https://json.schemastore.org/github-workflow.json\nversion: 1\nentries: []\n',
    ],
    ['a key that only starts like one', 'versions: 1\nentries: []\n'],
  ])('refuses %s', (_case, text) => {
    expect(isBlueprintText(text)).toBe(false);
  });

  it('takes every real blueprint of the corpus', () => {
    const missed = corpus.filter(({ text }) => !isBlueprintText(text)).map(({ name }) => name);
    expect(missed).toEqual([]);
  });
});

describe('isBlueprintDocument', () => {
  it.each([
    ['blueprint', '/w/anything.txt', true],
    ['yaml', '/w/login.blueprint.yaml', true],
    ['yaml', '/w/login.blueprint.yml', true],
    ['yaml', '/w/blueprints/system/bootstrap.yaml', true],
    ['yaml', 'C:\\w\\blueprints\\flows\\login.yml', true],
    ['json', '/w/login.blueprint.json', true],
    ['yaml', '/w/login.yaml', false],
    ['yaml', '/w/blueprints.yaml', false],
    ['json', '/w/blueprints/settings.json', false],
    ['markdown', '/w/login.blueprint.yaml', false],
  ])('%s %s -> %s', (languageId, fileName, expected) => {
    expect(isBlueprintDocument({ languageId, fileName })).toBe(expected);
  });
});
