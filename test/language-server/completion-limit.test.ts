import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { doComplete } from '../../language-server/src/service/completion/completion.ts';
import { createLanguageService } from '../../language-server/src/service/language-service.ts';
import { parseBlueprint } from '../../language-server/src/service/reading/parse-blueprint.ts';

const schemaPath = fileURLToPath(new URL('../../schemas/blueprint.schema.json', import.meta.url));
const { index } = createLanguageService({ schema: JSON.parse(readFileSync(schemaPath, 'utf8')) as object });

const entries = Array.from({ length: 500 }, (_, i) => `  - model: idp_flows.flow\n    id: flow_${i}\n    identifiers:\n      slug: f${i}\n`).join(''); // prettier-ignore

describe('completion in a large file', () => {
  it('sends the nearest 200 ids after !KeyOf and says the list is incomplete', () => {
    const text = `version: 1\nentries:\n${entries}  - model: idp_flows.flowstagebinding\n    identifiers:\n      target: !KeyOf \n`;
    const offset = text.lastIndexOf('!KeyOf ') + '!KeyOf '.length;
    const result = doComplete(text, parseBlueprint(text).root, offset, index);
    expect(result.incomplete).toBe(true);
    expect(result.items).toHaveLength(200);
    expect(result.items[0]!.label).toBe('flow_499');
  });

  it('finds a far id once part of it is typed', () => {
    const text = `version: 1\nentries:\n${entries}  - model: idp_flows.flowstagebinding\n    identifiers:\n      target: !KeyOf flow_12\n`;
    const offset = text.lastIndexOf('flow_12') + 'flow_12'.length;
    const result = doComplete(text, parseBlueprint(text).root, offset, index);
    expect(result.items.map((item) => item.label)).toContain('flow_12');
    expect(result.items.every((item) => item.label.includes('flow_12'))).toBe(true);
  });

  it('sends the ids that fit the field first, also when it keeps only those matching what is typed', () => {
    const groups = Array.from({ length: 300 }, (_, i) => `  - model: idp_core.group\n    id: group_${i}\n`).join('');
    const complete = (typed: string) => {
      const text = `version: 1\nentries:\n${entries}${groups}  - model: idp_flows.flowstagebinding\n    identifiers:\n      target: !KeyOf ${typed}\n`;
      const offset = text.lastIndexOf('!KeyOf ') + '!KeyOf '.length + typed.length;
      return doComplete(text, parseBlueprint(text).root, offset, index).items.map((item) => item.label);
    };
    // The 300 groups are nearer, but a flow stage binding's target is a flow.
    const all = complete('');
    expect(all).toHaveLength(200);
    expect(all[0]).toBe('flow_499');
    expect(all.every((label) => label.startsWith('flow_'))).toBe(true);
    const nearestFirst = (name: string) => [
      ...Array.from({ length: 10 }, (_, i) => `${name}_29${9 - i}`),
      `${name}_29`,
    ];
    expect(complete('_29')).toEqual([...nearestFirst('flow'), ...nearestFirst('group')]);
  });
});
