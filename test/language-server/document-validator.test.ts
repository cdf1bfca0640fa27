import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { editOneLine, generateBlueprint } from '../../bench/blueprint-generator.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { randomSource } from '../../server/demo/random-source.ts';
import { corpus, mutate } from './corpus-files.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Parameters<typeof generateBlueprint>[0];
const service = createLanguageService({ schema });

describe('a document validator (entries kept between versions)', () => {
  it('reports exactly what a fresh validation reports, over chains of random edits', () => {
    const random = randomSource(4242);
    for (const file of corpus) {
      const document = service.createDocumentValidator();
      let text = file.text;
      expect(document.validate(text)).toEqual(service.doValidation(text));
      for (let step = 0; step < 30; step++) {
        text = mutate(text, random);
        const kept = document.validate(text);
        const fresh = service.doValidation(text);
        if (JSON.stringify(kept) !== JSON.stringify(fresh)) expect(kept, `${file.name}, step ${step}`).toEqual(fresh);
      }
    }
  });

  it('finds a mistake typed into an unchanged document, and forgets it once fixed', () => {
    const generated = generateBlueprint(schema, 400);
    const document = service.createDocumentValidator();
    expect(document.validate(generated.text).filter((found) => found.severity === 'error')).toEqual([]);
    const { text, line } = editOneLine(generated, 0);
    const broken = text.split('\n');
    broken[line] = broken[line]!.replace(/^(\s+)([a-z_]+):/, '$1$2_typo:');
    const withTypo = broken.join('\n');
    const problems = document.validate(withTypo);
    expect(problems.map((found) => found.code)).toContain('field-unknown');
    expect(problems).toEqual(service.doValidation(withTypo));
    expect(document.validate(text).filter((found) => found.code === 'field-unknown')).toEqual([]);
  });

  it('reuses entries around edits spread over the document, and equals a fresh read after each', () => {
    const random = randomSource(77);
    const document = service.createDocumentValidator();
    let text = generateBlueprint(schema, 300).text;
    document.validate(text);
    for (let step = 0; step < 60; step++) {
      text = spreadEdits(text, random);
      const problems = document.validate(text);
      const fresh = service.doValidation(text);
      if (JSON.stringify(problems) !== JSON.stringify(fresh)) expect(problems, `step ${step}`).toEqual(fresh);
      // Completion and hover read the tree: moved entries must carry the offsets of this text.
      const tree = JSON.stringify(document.parse(text));
      if (tree !== JSON.stringify(parseBlueprint(text).root)) {
        expect(JSON.parse(tree), `tree at step ${step}`).toEqual(parseBlueprint(text).root);
      }
    }
  });
});

/**
 * Several changes at once, far apart, as an editor batches them or a storm of edits leaves them
 * between two parses: typing in values, models changed, fields misspelt, and whole entries moved
 * or copied elsewhere (so that unchanged entries turn up at new offsets, some of them twice). The
 * YAML stays well-formed, so that every parse can reuse the entries of the one before.
 */
function spreadEdits(text: string, random: ReturnType<typeof randomSource>): string {
  const lines = text.split('\n');
  // Entries of the generated blueprint sit in named groups, four spaces in.
  const entryStarts = () => lines.flatMap((line, index) => (/^ {4}- model: /.test(line) ? [index] : []));
  const entryAt = (starts: number[], pick: number): [number, number] => {
    const start = starts[pick]!;
    return [start, starts[pick + 1] ?? lines.length];
  };
  const changes = 2 + Math.floor(random.next() * 5);
  for (let i = 0; i < changes; i++) {
    const line = Math.floor(random.next() * lines.length);
    const starts = entryStarts();
    switch (Math.floor(random.next() * 6)) {
      case 0:
        lines[line] = lines[line]!.replace(/"$/, 'x"');
        break;
      case 1:
        lines[line] = lines[line]!.replace(/^(\s*- model: )\S+$/, '$1idp_core.group');
        break;
      case 2:
        lines[line] = lines[line]!.replace(/^(\s+)([a-z_]+):/, '$1$2_typo:');
        break;
      case 3: {
        // An entry moved below another one.
        const [from, to] = entryAt(starts, Math.floor(random.next() * (starts.length - 1)));
        const moved = lines.splice(from, to - from);
        const target = entryStarts()[Math.floor(random.next() * entryStarts().length)] ?? lines.length;
        lines.splice(target, 0, ...moved);
        break;
      }
      case 4: {
        // An entry copied: the same text twice in one document.
        const [from, to] = entryAt(starts, Math.floor(random.next() * (starts.length - 1)));
        lines.splice(to, 0, ...lines.slice(from, to));
        break;
      }
      default:
        // A blank or comment line becomes part of the entry above it: that entry's text changes.
        lines.splice(line, 0, random.next() < 0.5 ? '' : '  # a comment between entries');
    }
  }
  return lines.join('\n');
}
