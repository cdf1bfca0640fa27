import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkTags } from '../../language-server/src/service/checks/tag-check.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import type { BNode } from '../../language-server/src/service/reading/blueprint-node.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';
import { blueprintTags } from '../../language-server/src/service/tag-table.ts';
import { randomSource } from '../../server/demo/random-source.ts';
import { corpus, mutate } from './corpus-files.ts';

describe('the corpus', () => {
  // The two `invalid` files are invalid for schema reasons (version 999; an invalid email and a
  // model written `idp_core.User`), not for tag reasons: they too have no YAML or tag problem.
  it.each(corpus.map((file) => [file.name, file.text]))('%s parses with no YAML or tag problem', (_name, text) => {
    const { root, problems } = parseBlueprint(text);
    expect(problems).toEqual([]);
    expect(root?.kind).toBe('map');
    expect(checkTags(root)).toEqual([]);
  });

  it('uses every blueprint tag somewhere', () => {
    const used = new Set(corpus.flatMap((file) => file.text.match(/![A-Za-z]+/g) ?? []));
    expect(blueprintTags.map((tag) => tag.name).filter((name) => !used.has(name))).toEqual([]);
  });
});

/** Every node and entry of a tree, to check their ranges too. */
function nodesOf(root: BNode | undefined): { range: [number, number] }[] {
  const found: { range: [number, number] }[] = [];
  const pending = root ? [root] : [];
  while (pending.length > 0) {
    const node = pending.pop()!;
    found.push(node);
    if (node.kind === 'seq') pending.push(...node.items);
    if (node.kind === 'map')
      for (const entry of node.entries) (found.push(entry), pending.push(entry.key, entry.value));
  }
  return found;
}

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const service = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

describe('robustness', () => {
  it('2,000 seeded mutations of the corpus never throw and keep ranges inside the text', () => {
    const random = randomSource(20251201);
    const started = performance.now();
    let problemCount = 0;
    for (let run = 0; run < 2000; run++) {
      let text = random.pick(corpus).text;
      const edits = 1 + Math.floor(random.next() * 3);
      for (let i = 0; i < edits; i++) text = mutate(text, random);
      const { root, problems } = parseBlueprint(text);
      // doValidation (parse, tags, schema) must not throw either, nor report an internal error.
      const validation = service.doValidation(text);
      if (validation.some((problem) => problem.code === 'internal-error')) expect.fail(`internal error (run ${run})`);
      const all = [...problems, ...checkTags(root), ...validation];
      problemCount += all.length;
      for (const { range } of [...all, ...nodesOf(root)]) {
        const inside = 0 <= range[0] && range[0] <= range[1] && range[1] <= text.length;
        if (!inside) expect.fail(`range ${range.join('-')} outside a text of ${text.length} (run ${run}):\n${text}`);
      }
    }
    console.info(`2,000 mutations: ${Math.round(performance.now() - started)} ms, ${problemCount} problems`);
    expect(problemCount).toBeGreaterThan(0);
  });
});
