import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { editOneLine, generateBlueprint } from '../../bench/blueprint-generator.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { randomSource } from '../../server/demo/random-source.ts';
import { corpus, corpusAbsent, mutate } from './corpus-files.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Parameters<typeof generateBlueprint>[0];
const service = createLanguageService({ schema });

describe('a document validator (entries kept between versions)', () => {
  it.skipIf(corpusAbsent)('reports exactly what a fresh validation reports, over chains of random edits', () => {
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
});
