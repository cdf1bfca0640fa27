import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { randomSource } from '../../server/demo/random-source.ts';

/**
 * The project's own blueprints, written like real ones so the tests see real layouts and tags.
 * Names containing `invalid` are meant to produce errors; the others lint clean.
 */
export const CORPUS_DIR = fileURLToPath(new URL('../fixtures/blueprints', import.meta.url));

export const corpus = readdirSync(CORPUS_DIR)
  .filter((name) => /\.(ya?ml|json)$/.test(name))
  .sort()
  .map((name) => ({ name, text: readFileSync(`${CORPUS_DIR}/${name}`, 'utf8') }));

// A missing or emptied folder must fail the tests that iterate over it, not pass them vacuously.
if (corpus.length === 0) throw new Error(`no blueprint fixtures in ${CORPUS_DIR}`);

const insertions = ['!KeyOf x', '!Enumerate', '!Value 3', '!If [a, b]', '!Condition [', '!Foo', ':', '-', '[', '"'];

/** One random edit of a text: the kinds of slips an editor sees while someone types. */
export function mutate(text: string, random: ReturnType<typeof randomSource>): string {
  const at = Math.floor(random.next() * (text.length + 1));
  const lines = text.split('\n');
  const line = Math.floor(random.next() * lines.length);
  switch (Math.floor(random.next() * 6)) {
    case 0:
      lines.splice(line, 1);
      return lines.join('\n');
    case 1:
      lines.splice(line, 0, lines[line] ?? '');
      return lines.join('\n');
    case 2:
      return text.slice(0, at);
    case 3: {
      if (text.length < 2) return text;
      const i = Math.min(at, text.length - 2);
      return text.slice(0, i) + text[i + 1] + text[i] + text.slice(i + 2);
    }
    case 4:
      lines[line] = ` ${lines[line] ?? ''}`;
      return lines.join('\n');
    default:
      return text.slice(0, at) + random.pick(insertions) + text.slice(at);
  }
}
