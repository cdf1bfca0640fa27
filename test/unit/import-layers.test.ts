import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph } from './import-graph.ts';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
const graph = importGraph(REPOSITORY, ['common', 'server', 'language-server/src']);

/** Every import from a file matching `from` into a file matching `into`, as `file -> target`. */
function imports(from: (file: string) => boolean, into: (file: string) => boolean): string[] {
  return [...graph].flatMap(([file, targets]) =>
    from(file) ? targets.filter(into).map((target) => `${file} -> ${target}`) : [],
  );
}

/** The files that may import the HTTP layer: it sits on top, under only the handlers and the entry points. */
const onTopOfHttp = (file: string) =>
  file.endsWith('.handlers.ts') || ['server/app.ts', 'server/main.ts', 'server/handlers.ts'].includes(file);

describe('the house drawn from its imports (ARCHITECTURE.md)', () => {
  it('reads every file of the service and of the language server', () => {
    expect(graph.has('server/core/errors.ts')).toBe(true);
    expect(graph.has('language-server/src/service/language-service.ts')).toBe(true);
    expect(graph.size).toBeGreaterThan(150);
  });

  it('has no import circle', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('keeps the core neutral: it imports nothing of the service outside itself', () => {
    const core = (file: string) => file.startsWith('server/core/');
    expect(imports(core, (target) => target.startsWith('server/') && !core(target))).toEqual([]);
  });

  it('keeps HTTP on top: nothing below it imports server/http', () => {
    const http = (file: string) => file.startsWith('server/http/');
    expect(imports((file) => file.startsWith('server/') && !http(file) && !onTopOfHttp(file), http)).toEqual([]);
  });

  it('keeps the language service free of the LSP server and the CLI', () => {
    const service = (file: string) => file.startsWith('language-server/src/service/');
    expect(imports(service, (target) => target.startsWith('language-server/src/') && !service(target))).toEqual([]);
  });

  it('keeps the two halves apart: the service and the language server share only common/', () => {
    const service = (file: string) => file.startsWith('server/');
    const language = (file: string) => file.startsWith('language-server/');
    expect(imports(service, language)).toEqual([]);
    expect(imports(language, service)).toEqual([]);
    const common = (file: string) => file.startsWith('common/');
    expect(imports(common, (target) => !common(target))).toEqual([]);
  });

  it('finds a circle and a wrong-way import when there is one', () => {
    const looped = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCircles(looped)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
