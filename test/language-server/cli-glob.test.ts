import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandGlob, isGlob } from '../../language-server/src/cli/glob.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'blueprint-glob-'));
  for (const file of [
    'a.yaml',
    'b.yml',
    'ab.yaml',
    'sub/c.yaml',
    'sub/deep/d.yaml',
    '.hidden/e.yaml',
    'node_modules/f.yaml',
  ]) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), '');
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('expandGlob', () => {
  it('matches * and ? within one segment', () => {
    expect(expandGlob('*.yaml', dir)).toEqual(['a.yaml', 'ab.yaml']);
    expect(expandGlob('?.y*', dir)).toEqual(['a.yaml', 'b.yml']);
  });

  it('matches ** across zero or more segments, skipping dot-directories and node_modules', () => {
    expect(expandGlob('**/*.yaml', dir)).toEqual(['a.yaml', 'ab.yaml', 'sub/c.yaml', 'sub/deep/d.yaml']);
    expect(expandGlob('sub/**/d.yaml', dir)).toEqual(['sub/deep/d.yaml']);
  });

  it('keeps the literal base of the pattern, relative or absolute', () => {
    expect(expandGlob(`${dir}/sub/*.yaml`)).toEqual([`${dir}/sub/c.yaml`]);
    expect(expandGlob('nothing/*.yaml', dir)).toEqual([]);
  });

  it('tells globs from plain paths', () => {
    expect(isGlob('a/*.yaml')).toBe(true);
    expect(isGlob('a/b.yaml')).toBe(false);
  });
});
