import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withRulesTable } from '../../language-server/src/docs/rules-table.ts';
import { allCodes } from '../../language-server/src/service/problem.ts';

describe('the README rules table', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('is current with the code table (npm run generate:readme-rules)', () => {
    expect(readme).toBe(withRulesTable(readme));
  });

  it('lists every code with its severity', () => {
    for (const [code, info] of Object.entries(allCodes)) expect(readme).toContain(`| \`${code}\` | ${info.severity} |`);
  });
});
