/**
 * The edit storm of `blueprint-lsp.bench.ts`: small incremental edits sent as fast as the client
 * can write them, with hover and completion requests interleaved (not awaited, as an editor sends
 * them), then the time from the last edit to the diagnostics of the final version. Also the
 * latency of a `model:` completion sent right after an edit.
 */
import type { LspProcess } from './lsp-process.ts';

interface Position {
  line: number;
  character: number;
}

export interface StormSettings {
  edits: number;
  requests: number;
  /** A request not answered within this many ms counts as timed out (an editor gives up too). */
  requestTimeoutMs: number;
}

/** Rounds to one decimal, as the blueprint LSP figures are reported. */
export const round = (value: number) => Math.round(value * 10) / 10;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
/** Count, p50, p95 and max of timings in ms. */
export const summary = (values: number[]) => ({
  count: values.length,
  p50: round(percentile(values, 50)),
  p95: round(percentile(values, 95)),
  max: round(Math.max(...values)),
});

/** Lines ending in a quoted value, where typing goes (one character inside the quotes per edit). */
function editableLines(text: string): number[] {
  return text
    .split('\n')
    .map((line, index) => (/: "[^"]*"$/.test(line) ? index : -1))
    .filter((index) => index >= 0);
}

/** `model: x` lines: completion at the end of the value, hover on it. */
function modelLines(text: string): { line: number; length: number; valueAt: number }[] {
  const found: { line: number; length: number; valueAt: number }[] = [];
  text.split('\n').forEach((line, index) => {
    const model = /^(\s*-?\s*)model: \S+$/.exec(line);
    if (model) found.push({ line: index, length: line.length, valueAt: model[1]!.length + 'model: '.length });
  });
  return found;
}

/** Types into 20 lines spread over the document, a few characters at a time each (lines never change count). */
function* typing(text: string, count: number): Generator<{ line: number; character: number }> {
  const editable = editableLines(text);
  const lines = Array.from({ length: 20 }, (_, i) => editable[Math.floor(((i + 0.5) * editable.length) / 20)]!);
  const split = text.split('\n');
  const cursor = new Map(lines.map((line) => [line, split[line]!.length - 1]));
  for (let i = 0; i < count; i++) {
    const line = lines[Math.floor(i / 10) % lines.length]!;
    const character = cursor.get(line)!;
    cursor.set(line, character + 1);
    yield { line, character };
  }
}

export async function measureStorm(server: LspProcess, uri: string, text: string, settings: StormSettings) {
  const started = performance.now();
  await server.open(uri, text);
  const openMs = performance.now() - started;
  const models = modelLines(text);
  const every = Math.max(1, Math.floor(settings.edits / settings.requests));
  const pending: Promise<number | undefined>[] = [];
  let version = 1;
  let sent = 0;
  const editsStarted = performance.now();
  for (const at of typing(text, settings.edits)) {
    version = await server.notifyChange(uri, [{ range: { start: at, end: at }, text: 'x' }]);
    if (++sent % every === 0 && pending.length < settings.requests) {
      const model = models[Math.floor((pending.length * 7919) % models.length)]!;
      const hover = pending.length % 2 === 1;
      const position: Position = hover
        ? { line: model.line, character: model.valueAt + 2 }
        : { line: model.line, character: model.length };
      pending.push(server.answeredWithin(hover ? 'textDocument/hover' : 'textDocument/completion', { textDocument: { uri }, position }, settings.requestTimeoutMs)); // prettier-ignore
    }
  }
  const lastEdit = performance.now();
  const final = await server.diagnosticsOfVersion(uri, version);
  const finalDiagnosticsMs = performance.now() - lastEdit;
  const latencies = await Promise.all(pending);
  const answered = latencies.filter((ms): ms is number => ms !== undefined);
  return {
    entriesKb: Math.round(text.length / 1024),
    openToDiagnosticsMs: round(openMs),
    edits: settings.edits,
    editsSentInMs: round(lastEdit - editsStarted),
    lastEditToFinalDiagnosticsMs: round(finalDiagnosticsMs),
    finalDiagnostics: final.length,
    requests: { ...summary(answered), sent: pending.length, answered: answered.length },
  };
}

/** A `model:` completion sent right after a one-character edit, `count` times (each awaited). */
export async function measureCompletionAfterEdit(server: LspProcess, uri: string, text: string, count: number) {
  await server.open(uri, text);
  const models = modelLines(text);
  const times: number[] = [];
  let answered = 0;
  const edits = typing(text, count);
  for (let i = 0; i < count; i++) {
    const at = edits.next().value!;
    await server.notifyChange(uri, [{ range: { start: at, end: at }, text: 'x' }]);
    const model = models[Math.floor((i * 7919) % models.length)]!;
    const position = { line: model.line, character: model.length };
    const { ms, result } = await server.timed<{ items?: unknown[] } | null>('textDocument/completion', { textDocument: { uri }, position }); // prettier-ignore
    times.push(ms);
    if (result?.items?.length) answered++;
  }
  return { ...summary(times), answered };
}
