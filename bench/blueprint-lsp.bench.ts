/**
 * Part of `npm run bench:blueprints`: LSP round trips on the generated 10,000-entry blueprint, for our
 * server and yaml-language-server (same schema, all tags as customTags), each over stdio: completion
 * at 100 positions, hover at 100 positions, diagnostics after a one-line edit; p50/p95 and server RSS.
 * Then, ours only, an edit storm (bench/lsp-edit-storm.ts: 3,000 edits on ~780 KB with 120 requests
 * interleaved) and `model:` completion right after an edit on 5,000 entries (`BENCH_LSP_ONLY=storm`: only those).
 * Writes bench/results/blueprint-lsp.json and prints a Markdown table. See bench/README.md.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateBlueprint } from './blueprint-generator.ts';
import { CUSTOM_TAGS } from './blueprint-tags.ts';
import { measureCompletionAfterEdit, measureStorm, round, summary } from './lsp-edit-storm.ts';
import { LspProcess, servers } from './lsp-process.ts';
import { machineInfo } from './machine.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCHEMA_PATH = path.join(ROOT, 'schemas', 'blueprint.schema.json');
const RESULTS = process.env.BENCH_LSP_RESULTS ?? path.join(ROOT, 'bench', 'results', 'blueprint-lsp.json');
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
const POSITIONS = Number(process.env.BENCH_POSITIONS ?? 100);
const EDITS = Number(process.env.BENCH_EDITS ?? 10);
/** `ours` to measure only our server (quick iterations); both by default. */
const ONLY_OURS = process.env.BENCH_LSP_SERVERS === 'ours';
/** `bundled` runs our server as the extension ships it (built first), not through tsx. */
const BUNDLED = process.env.BENCH_LSP_BLUEPRINT === 'bundled';
/** The edit storm: edits on a document of STORM_ENTRIES (~780 KB), with requests interleaved. */
const STORM_ENTRIES = Number(process.env.BENCH_STORM_ENTRIES ?? 2_500);
const STORM_EDITS = Number(process.env.BENCH_STORM_EDITS ?? 3_000);
const STORM_REQUESTS = Number(process.env.BENCH_STORM_REQUESTS ?? 120);
/** `model:` completions right after an edit, on a 5,000-entry document. */
const AFTER_EDIT_ENTRIES = 5_000;
const AFTER_EDIT_COMPLETIONS = Number(process.env.BENCH_AFTER_EDIT_COMPLETIONS ?? 100);
/** `storm` measures only the edit storm and completion after an edit, of our server. */
const ONLY_STORM = process.env.BENCH_LSP_ONLY === 'storm';
/** A server slower than this per request is sampled at fewer positions (the bench must end). */
const SLOW_REQUEST_MS = 2_000;

const log = (message: string) => console.error(`[bench-lsp] ${message}`);

interface Position {
  line: number;
  character: number;
}

/** Where an author asks for completion and hover: model values, field keys and `!KeyOf` ids, spread over the file. */
function positions(text: string): { completion: Position[]; hover: Position[] } {
  const completion: Position[] = [];
  const hover: Position[] = [];
  text.split('\n').forEach((line, index) => {
    const model = /^(\s*-?\s*)model: (\S+)$/.exec(line);
    if (model) {
      completion.push({ line: index, character: line.length });
      hover.push({ line: index, character: model[1]!.length + 'model: '.length + 2 });
    }
    const field = /^(\s{6,})([a-z_]+): (?!!KeyOf)/.exec(line);
    if (field) {
      completion.push({ line: index, character: field[1]!.length + field[2]!.length });
      hover.push({ line: index, character: field[1]!.length + 1 });
    }
    const keyOf = line.indexOf('!KeyOf ');
    if (keyOf >= 0) {
      completion.push({ line: index, character: keyOf + '!KeyOf '.length });
      hover.push({ line: index, character: keyOf + '!KeyOf '.length + 1 });
    }
  });
  const spread = (all: Position[], count: number) =>
    Array.from({ length: Math.min(count, all.length) }, (_, i) => all[Math.floor((i * all.length) / count)]!);
  return { completion: spread(completion, POSITIONS), hover: spread(hover, POSITIONS) };
}

async function measure(server: LspProcess, workspace: string, text: string, where: ReturnType<typeof positions>) {
  const started = performance.now();
  await server.start(workspace);
  const uri = pathToFileURL(path.join(workspace, 'generated.blueprint.yaml')).href;
  const opened = await server.open(uri, text);
  const result: Record<string, unknown> = {
    version: server.version,
    startMs: round(performance.now() - started - opened.ms),
    openToDiagnosticsMs: round(opened.ms),
  };

  const run = async (method: string, list: Position[]) => {
    const times: number[] = [];
    let answered = 0;
    for (const position of list) {
      const { ms, result: answer } = await server.timed<unknown>(method, { textDocument: { uri }, position });
      times.push(ms);
      if (answer && (!Array.isArray(answer) || answer.length > 0)) answered++;
      if (ms > SLOW_REQUEST_MS && times.length >= 10) break;
    }
    return { ...summary(times), answered };
  };
  result.completion = await run('textDocument/completion', where.completion);
  result.hover = await run('textDocument/hover', where.hover);

  // One line changed (a quoted value near the middle), as an editor sends it: an incremental change.
  const lines = text.split('\n');
  const editable = lines.map((line, index) => (/: "[^"]*"$/.test(line) ? index : -1)).filter((index) => index >= 0);
  const edits: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const line = editable[Math.floor(editable.length / 2) + i]!;
    const start = lines[line]!.lastIndexOf('"', lines[line]!.length - 2) + 1;
    const change = { range: { start: { line, character: start }, end: { line, character: start } }, text: 'x' };
    edits.push((await server.edit(uri, [change])).ms);
  }
  result.diagnosticsAfterEdit = summary(edits);
  result.memoryMb = server.memoryMb();
  result.stop = await server.stop();
  return result;
}

/** Our server only: yaml-language-server has no versioned diagnostics to wait for. */
async function measureEditStorm(schema: Parameters<typeof generateBlueprint>[0], workspace: string) {
  // Each measure on a server of its own, started for it and stopped after it.
  const onFreshServer = async <T>(file: string, measure: (server: LspProcess, uri: string) => Promise<T>) => {
    const server = new LspProcess(BUNDLED ? servers.blueprintBundled : servers.blueprint, { blueprint: { schema: SCHEMA_PATH } }); // prettier-ignore
    await server.start(workspace);
    try {
      return await measure(server, pathToFileURL(path.join(workspace, file)).href);
    } finally {
      await server.stop();
    }
  };
  const storm = await onFreshServer('storm.blueprint.yaml', (server, uri) =>
    measureStorm(server, uri, generateBlueprint(schema, STORM_ENTRIES).text, {
      edits: STORM_EDITS,
      requests: STORM_REQUESTS,
      requestTimeoutMs: 10_000,
    }),
  );
  const completionAfterEdit = await onFreshServer('after-edit.blueprint.yaml', (server, uri) =>
    measureCompletionAfterEdit(server, uri, generateBlueprint(schema, AFTER_EDIT_ENTRIES).text, AFTER_EDIT_COMPLETIONS),
  );
  const result = { storm: { entries: STORM_ENTRIES, ...storm }, completionAfterEdit: { entries: AFTER_EDIT_ENTRIES, ...completionAfterEdit } }; // prettier-ignore
  log(`edit storm: ${JSON.stringify(result)}`);
  return result;
}

async function main() {
  const schema = JSON.parse(await readFile(SCHEMA_PATH, 'utf8')) as Parameters<typeof generateBlueprint>[0];
  if (ONLY_STORM) {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'bench-blueprint-lsp-'));
    const editStorm = await measureEditStorm(schema, tmp).finally(() => rm(tmp, { recursive: true, force: true }));
    // The other figures of the results file are kept; only the storm's are replaced.
    const previous = JSON.parse(await readFile(RESULTS, 'utf8').catch(() => '{}')) as Record<string, unknown>;
    await writeFile(
      RESULTS,
      JSON.stringify({ ...previous, editStorm: { machine: machineInfo(), ...editStorm } }, null, 2) + '\n',
    );
    return;
  }
  const generated = generateBlueprint(schema, ENTRIES);
  const where = positions(generated.text);
  log(`${ENTRIES} entries; ${where.completion.length} completion and ${where.hover.length} hover positions`);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bench-blueprint-lsp-'));
  try {
    const ours = await measure(
      new LspProcess(BUNDLED ? servers.blueprintBundled : servers.blueprint, { blueprint: { schema: SCHEMA_PATH } }),
      tmp,
      generated.text,
      where,
    );
    log(`ours done: ${JSON.stringify(ours)}`);
    const editStorm = await measureEditStorm(schema, tmp);
    const yamlSettings = {
      validate: true,
      hover: true,
      completion: true,
      schemas: { [pathToFileURL(SCHEMA_PATH).href]: '*.yaml' },
      customTags: CUSTOM_TAGS,
      schemaStore: { enable: false },
    };
    if (ONLY_OURS) return;
    const theirs = await measure(new LspProcess(servers.yamlLanguageServer, { yaml: yamlSettings }), tmp, generated.text, where); // prettier-ignore
    log(`yaml-language-server done: ${JSON.stringify(theirs)}`);
    await report(ours, theirs, generated.lines, editStorm);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

type Summary = { count: number; p50: number; p95: number; max: number; answered?: number };

async function report(
  ours: Record<string, unknown>,
  theirs: Record<string, unknown>,
  lines: number,
  editStorm: Awaited<ReturnType<typeof measureEditStorm>>,
) {
  const o = ours as { completion: Summary; hover: Summary; diagnosticsAfterEdit: Summary; memoryMb: { peak?: number } };
  const t = theirs as typeof o;
  const faster = (a: Summary, b: Summary) => a.p95 < b.p95;
  const targets = {
    completion: { target: 'completion p95 <= 20 ms', value: o.completion.p95, met: o.completion.p95 <= 20 },
    hover: { target: 'hover p95 <= 10 ms', value: o.hover.p95, met: o.hover.p95 <= 10 },
    diagnostics: {
      target: 'diagnostics after edit <= 100 ms (p95)',
      value: o.diagnosticsAfterEdit.p95,
      met: o.diagnosticsAfterEdit.p95 <= 100,
    },
    memory: { target: 'RSS <= 200 MB (peak)', value: round(o.memoryMb.peak ?? NaN), met: (o.memoryMb.peak ?? Infinity) <= 200 },
    stormDiagnostics: {
      target: 'edit storm: final diagnostics <= 1 s after the last edit',
      value: editStorm.storm.lastEditToFinalDiagnosticsMs,
      met: editStorm.storm.lastEditToFinalDiagnosticsMs <= 1_000,
    },
    stormRequests: {
      target: 'edit storm: every request answered (within 10 s)',
      value: `${editStorm.storm.requests.answered}/${editStorm.storm.requests.sent}`,
      met: editStorm.storm.requests.answered === editStorm.storm.requests.sent,
    },
    completionAfterEdit: {
      target: '`model:` completion right after an edit (5,000 entries) p95 <= 50 ms',
      value: editStorm.completionAfterEdit.p95,
      met: editStorm.completionAfterEdit.p95 <= 50,
    },
    fasterEverywhere: {
      target: 'faster than yaml-language-server on each (p95)',
      value: ['completion', 'hover', 'diagnosticsAfterEdit'].filter((key) => !faster(o[key as 'hover'], t[key as 'hover'])).join(', ') || 'all faster',
      met: faster(o.completion, t.completion) && faster(o.hover, t.hover) && faster(o.diagnosticsAfterEdit, t.diagnosticsAfterEdit),
    },
  }; // prettier-ignore
  const row = (name: string, a: Summary, b: Summary) =>
    `| ${name} | ${a.p50} / ${a.p95} ms (${a.answered ?? a.count}/${a.count} answered) | ${b.p50} / ${b.p95} ms (${b.answered ?? b.count}/${b.count} answered) |`;
  const table = [
    `| LSP round trip on ${ENTRIES.toLocaleString('en-US')} entries (${lines.toLocaleString('en-US')} lines), p50 / p95 | ours | yaml-language-server ${String(theirs.version)} |`,
    '|---|---:|---:|',
    row('completion', o.completion, t.completion),
    row('hover', o.hover, t.hover),
    `| diagnostics after a one-line edit | ${o.diagnosticsAfterEdit.p50} / ${o.diagnosticsAfterEdit.p95} ms | ${t.diagnosticsAfterEdit.p50} / ${t.diagnosticsAfterEdit.p95} ms |`,
    `| didOpen → first diagnostics | ${String(ours.openToDiagnosticsMs)} ms | ${String(theirs.openToDiagnosticsMs)} ms |`,
    `| server RSS at the end (peak) | ${round(o.memoryMb.peak ?? NaN)} MB | ${round(t.memoryMb.peak ?? NaN)} MB |`,
  ]; // prettier-ignore
  console.log(table.join('\n'));
  console.log(['', '| target | value | met |', '|---|---:|---|', ...Object.values(targets).map((x) => `| ${x.target} | ${x.value} | ${x.met ? 'met' : 'missed'} |`)].join('\n')); // prettier-ignore
  const results = {
    machine: machineInfo(),
    settings: { entries: ENTRIES, positions: POSITIONS, edits: EDITS },
    ours,
    yamlLanguageServer: theirs,
    editStorm,
    targets,
  };
  await mkdir(path.dirname(RESULTS), { recursive: true });
  await writeFile(RESULTS, JSON.stringify(results, null, 2) + '\n');
  console.log(`\nWritten to ${path.relative(process.cwd(), RESULTS)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
