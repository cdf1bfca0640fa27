import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  SCHEMA_INFO_REQUEST,
  VALIDATE_FILES_REQUEST,
} from '../../language-server/src/server/handlers/blueprint-requests.ts';
import { BLUEPRINT_FILE_GLOBS, BLUEPRINT_LANGUAGE_ID } from '../../vscode-extension/src/blueprint-files.ts';
import * as protocol from '../../vscode-extension/src/protocol.ts';

const read = (relative: string) => readFileSync(new URL(`../../vscode-extension/${relative}`, import.meta.url), 'utf8');
const manifest = JSON.parse(read('package.json'));
const grammar = JSON.parse(read('syntaxes/blueprint.tmLanguage.json'));
const languageConfiguration = JSON.parse(read('language-configuration.json'));

const TAGS = [
  'KeyOf',
  'Env',
  'File',
  'Context',
  'ParseJSON',
  'Format',
  'Find',
  'FindObject',
  'Condition',
  'If',
  'Enumerate',
  'Index',
  'Value',
  'AtIndex',
];

describe('package.json', () => {
  it('has what the marketplace and vsce ask for', () => {
    expect(manifest).toMatchObject({
      name: 'blueprint-vscode',
      license: 'MIT',
      icon: 'images/icon.png',
      main: './dist/extension.js',
      engines: { vscode: '^1.82.0' },
      categories: ['Programming Languages', 'Linters'],
    });
    for (const field of ['displayName', 'description', 'version', 'publisher', 'repository', 'keywords']) {
      expect(manifest[field], field).toBeTruthy();
    }
    // vsce refuses @types/vscode newer than the lowest VS Code the extension claims.
    expect(manifest.devDependencies['@types/vscode']).toBe('~1.82.0');
  });

  it('contributes the blueprint language for the file names the extension searches', () => {
    const [language] = manifest.contributes.languages;
    expect(language).toMatchObject({
      id: BLUEPRINT_LANGUAGE_ID,
      extensions: ['.blueprint.yaml', '.blueprint.yml', '.blueprint.json'],
      filenamePatterns: ['**/blueprints/**/*.yaml', '**/blueprints/**/*.yml'],
      configuration: './language-configuration.json',
    });
    expect(BLUEPRINT_FILE_GLOBS).toEqual(['**/*.blueprint.{yaml,yml,json}', '**/blueprints/**/*.{yaml,yml}']);
    expect(manifest.contributes.grammars).toEqual([
      { language: 'blueprint', scopeName: 'source.blueprint', path: './syntaxes/blueprint.tmLanguage.json' },
    ]);
  });

  it('declares the settings the server reads, with their defaults', () => {
    const properties = manifest.contributes.configuration.properties;
    expect(properties['blueprint.schema']).toMatchObject({ type: 'string', default: '' });
    expect(properties['blueprint.validate.enable']).toMatchObject({ type: 'boolean', default: true });
    expect(properties['blueprint.modeline.allowedPaths']).toMatchObject({ type: 'array', default: [] });
    expect(properties['blueprint.modeline.allowDownload']).toMatchObject({ type: 'boolean', default: false });
    expect(properties['blueprint.trace.server']).toMatchObject({
      enum: ['off', 'messages', 'verbose'],
      default: 'off',
    });
  });

  it('titles the commands "Blueprint: ..."', () => {
    const titles = manifest.contributes.commands.map(
      ({ command, category, title }: Record<string, string>) => `${command} ${category}: ${title}`,
    );
    expect(titles).toEqual([
      'blueprint.validateWorkspace Blueprint: Validate Workspace',
      'blueprint.showSchema Blueprint: Show Schema',
    ]);
  });
});

describe('grammar', () => {
  const tag = new RegExp(grammar.repository['custom-tag'].match, 'g');
  const tagsIn = (line: string) => [...line.matchAll(tag)].map((match) => match[0]);

  it('is YAML underneath', () => {
    expect(grammar.scopeName).toBe('source.blueprint');
    expect(grammar.patterns).toEqual([{ include: 'source.yaml' }]);
    expect(Object.values(grammar.injections)).toEqual([{ patterns: [{ include: '#custom-tag' }] }]);
  });

  it('gives each of the 14 tags its own scope', () => {
    expect(grammar.repository['custom-tag'].captures['0'].name).toBe('support.function.tag.blueprint');
    for (const name of TAGS) {
      expect(tagsIn(`value: !${name} x`), name).toEqual([`!${name}`]);
      expect(tagsIn(`value: [!${name}, !${name} [a]]`), name).toEqual([`!${name}`, `!${name}`]);
    }
    expect(tagsIn('  - !If\n')).toEqual(['!If']);
    expect(tagsIn('{a: !Value 0}')).toEqual(['!Value']);
  });

  it('leaves other tags and look-alikes to YAML', () => {
    for (const line of ['a: !Foo x', 'a: !KeyOfx y', 'a: b!KeyOf', 'a: !!str x', 'a: !keyof x']) {
      expect(tagsIn(line), line).toEqual([]);
    }
  });
});

describe('language configuration', () => {
  it('comments with #, pairs brackets and indents after a key', () => {
    expect(languageConfiguration.comments).toEqual({ lineComment: '#' });
    expect(languageConfiguration.brackets).toEqual([
      ['{', '}'],
      ['[', ']'],
    ]);
    const indentAfter = new RegExp(languageConfiguration.indentationRules.increaseIndentPattern);
    for (const line of ['entries:', '  - identifiers:', '    value: !If', '    text: |', '  -']) {
      expect(indentAfter.test(line), line).toBe(true);
    }
    for (const line of ['    name: x', '# entries:', '  - model: idp_core.user']) {
      expect(indentAfter.test(line), line).toBe(false);
    }
  });
});

describe('protocol', () => {
  it("names the server's custom requests", () => {
    expect(protocol.SCHEMA_INFO_REQUEST).toBe(SCHEMA_INFO_REQUEST);
    expect(protocol.VALIDATE_FILES_REQUEST).toBe(VALIDATE_FILES_REQUEST);
  });
});
