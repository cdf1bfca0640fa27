import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SERVER = fileURLToPath(new URL('../../../language-server/bin/blueprint-language-server.js', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./neovim-client.lua', import.meta.url));
const nvim = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
const absent = nvim.status !== 0;
// `.ci/run` installs Neovim; elsewhere a machine without it skips this test and says so.
if (absent && process.env.CI !== 'true')
  console.warn('Neovim LSP test skipped: nvim is not installed (apt-get install neovim)');

describe.skipIf(absent && process.env.CI !== 'true')('an independent client: Neovim’s built-in LSP client', () => {
  it('gets diagnostics and completion from the server', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'blueprint-nvim-'));
    const file = path.join(folder, 'flow.blueprint.yaml');
    const out = path.join(folder, 'result.json');
    writeFileSync(file, 'version: 1\nentries:\n  - model: idp_flows.flw\n    identifiers:\n      slug: x\n');
    const run = spawnSync('nvim', ['--headless', '-u', 'NONE', '-i', 'NONE', '-c', `luafile ${SCRIPT}`], {
      env: { ...process.env, BLUEPRINT_FILE: file, BLUEPRINT_OUT: out, BLUEPRINT_SERVER: SERVER, BLUEPRINT_LINE: '2', BLUEPRINT_CHARACTER: '13' }, // prettier-ignore
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.error).toBeUndefined();
    const result = JSON.parse(readFileSync(out, 'utf8')) as {
      diagnostics: { code: string; message: string }[];
      completion: string[];
      errors: string[];
    };
    expect(result.errors).toEqual([]);
    expect(result.diagnostics).toMatchObject([{ code: 'model-unknown' }]);
    expect(result.diagnostics[0]!.message).toContain("Did you mean 'idp_flows.flow'");
    expect(result.completion).toContain('idp_flows.flow');
  }, 90_000);
});
