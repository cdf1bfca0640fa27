/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): the top functions by self time, and the time
 * spent under each package or area (inclusive: a sample counts once for every area on its stack).
 * Usage: `npx tsx bench/profile-top.ts <file.cpuprofile> [count]`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const ROOT = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Where a frame's code lives: a package under node_modules, a folder of the repository, node itself, or a V8 pseudo-frame. */
function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const modules = file.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = file.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const relative = path.relative(ROOT, file);
  return relative.startsWith('..') ? file : relative.split(path.sep).slice(0, 2).join('/');
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const modules = file.lastIndexOf('node_modules/');
  const where = modules >= 0 ? file.slice(modules + 'node_modules/'.length) : path.relative(ROOT, file);
  return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
}

/** Packages grouped into the layers of a request, for the additive breakdown. */
const LAYERS: [RegExp, string][] = [
  [/^(@mikro-orm\/|knex$|tarn$|umzug$)/, 'ORM: MikroORM + knex (+ tarn pool)'],
  [
    /^(pg|pg-protocol|pg-pool|pg-types|postgres-array|postgres-date|postgres-interval|postgres-bytea|pgpass|pg-connection-string)$/,
    'pg driver',
  ],
  [
    /^(koa|koa-compose|@koa\/router|koa-body|co-body|raw-body|delegates|on-finished|ee-first|statuses|accepts|type-is|content-type|cookies|http-errors|path-to-regexp|vary|encodeurl|escape-html|mime-types|mime-db|fresh|only|inflation|iconv-lite|destroy|http-assert|depd|content-disposition|formidable)$/,
    'Koa + router + body parser',
  ],
  [
    /^(openapi-backend|ajv|ajv-formats|bath-es5|lodash|qs|fast-deep-equal|fast-uri|json-schema-traverse|openapi-schema-validator|mock-json-schema)$/,
    'contract validation: openapi-backend + ajv + qs',
  ],
  [/^rate-limiter-flexible$/, 'rate limiting'],
  [
    /^(pino|sonic-boom|thread-stream|pino-std-serializers|fast-redact|quick-format-unescaped|atomic-sleep|on-exit-leak-free|safe-stable-stringify)$/,
    'logging (pino)',
  ],
  [/^tsx$/, 'tsx loader'],
  [/^server\//, 'app code (server/)'],
  [/^bench\//, 'bench server code (bench/)'],
];

function layerOf(area: string): string {
  if (area === '(none)') return 'node core, no JS caller (http parser, sockets, timers)';
  for (const [pattern, layer] of LAYERS) if (pattern.test(area)) return layer;
  return area;
}

export interface ProfileSummary {
  totalMs: number;
  /** Wall time covered by the samples summarised. */
  wallMs: number;
  top: { fn: string; area: string; selfMs: number; percent: number; callers: { area: string; percent: number }[] }[];
  areas: { area: string; inclusiveMs: number; selfMs: number; percent: number }[];
  /** Additive: each sample goes to the layer of its function, or for node/native code to that of its nearest caller outside them. */
  layers: { layer: string; ms: number; percent: number }[];
}

const LOW_LEVEL = new Set(['node:internal', '(native)']);

/**
 * Self time per function (top `count`), with, for each, the share of its samples by the nearest
 * caller outside node internals and native code (who made that `writeBuffer`); and the inclusive
 * time per area. `window` (microseconds on the profile's clock, i.e. process.hrtime) keeps only the
 * samples taken in it: the measured run, without start-up and warm-up.
 */
export function summarise(profile: CpuProfile, count = 20, window?: { from: number; to: number }): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfByNode = new Map<number, number>();
  let at = profile.startTime;
  let first = Infinity;
  let last = -Infinity;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.from || at > window.to)) return;
    first = Math.min(first, at);
    last = Math.max(last, at);
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + delta);
  });
  const totalUs = [...selfByNode.values()].reduce((a, b) => a + b, 0);
  const callerArea = (id: number): string => {
    for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
      const frame = byId.get(up)!;
      const area = areaOf(frame.callFrame.url, frame.callFrame.functionName);
      if (!LOW_LEVEL.has(area) && frame.callFrame.functionName !== '(root)') return area;
    }
    return '(none)';
  };
  const callersByFunction = new Map<string, Map<string, number>>();
  const layerTotals = new Map<string, number>();

  const selfByFunction = new Map<string, { area: string; us: number }>();
  const areaSelf = new Map<string, number>();
  const areaInclusive = new Map<string, number>();
  for (const [id, us] of selfByNode) {
    const node = byId.get(id)!;
    const area = areaOf(node.callFrame.url, node.callFrame.functionName);
    const key = label(node);
    const entry = selfByFunction.get(key) ?? { area, us: 0 };
    entry.us += us;
    selfByFunction.set(key, entry);
    const callers = callersByFunction.get(key) ?? new Map<string, number>();
    const caller = callerArea(id);
    callers.set(caller, (callers.get(caller) ?? 0) + us);
    callersByFunction.set(key, callers);
    const layer = LOW_LEVEL.has(area) ? layerOf(caller) : layerOf(area);
    layerTotals.set(layer, (layerTotals.get(layer) ?? 0) + us);
    areaSelf.set(area, (areaSelf.get(area) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      if (frame.callFrame.functionName === '(root)') continue;
      seen.add(areaOf(frame.callFrame.url, frame.callFrame.functionName));
    }
    for (const seenArea of seen) areaInclusive.set(seenArea, (areaInclusive.get(seenArea) ?? 0) + us);
  }
  const ms = (us: number) => Math.round(us / 100) / 10;
  const percent = (us: number) => Math.round((us / totalUs) * 1000) / 10;
  return {
    totalMs: ms(totalUs),
    wallMs: Number.isFinite(first) ? ms(last - first) : 0,
    top: [...selfByFunction.entries()]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, count)
      .map(([fn, { area, us }]) => ({
        fn,
        area,
        selfMs: ms(us),
        percent: percent(us),
        callers: [...callersByFunction.get(fn)!.entries()]
          .sort((a, b) => b[1] - a[1])
          .map(([caller, callerUs]) => ({ area: caller, percent: Math.round((callerUs / us) * 100) })),
      })),
    layers: [...layerTotals.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([layer, us]) => ({ layer, ms: ms(us), percent: percent(us) })),
    areas: [...areaInclusive.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([area, us]) => ({ area, inclusiveMs: ms(us), selfMs: ms(areaSelf.get(area) ?? 0), percent: percent(us) })),
  };
}

export function formatSummary(summary: ProfileSummary, title: string): string {
  const lines = [
    `${title}: ${summary.totalMs} ms sampled over ${summary.wallMs} ms`,
    '',
    `top ${summary.top.length} by self time:`,
    '  self ms     %  function (file:line)  [for node/native code: nearest caller outside them, share]',
  ];
  for (const row of summary.top) {
    const callers =
      LOW_LEVEL.has(row.area) && !row.fn.startsWith('(')
        ? `  [${row.callers
            .slice(0, 3)
            .map((c) => `${c.area} ${c.percent}%`)
            .join(', ')}]`
        : '';
    lines.push(`  ${String(row.selfMs).padStart(7)} ${String(row.percent).padStart(5)}  ${row.fn}${callers}`);
  }
  lines.push(
    '',
    'by layer (additive; node/native code such as socket writes goes to the layer that called it):',
    '       ms     %  layer',
  );
  for (const row of summary.layers)
    lines.push(`  ${String(row.ms).padStart(7)} ${String(row.percent).padStart(5)}  ${row.layer}`);
  lines.push(
    '',
    'by area (inclusive = on the stack; a sample counts once per area):',
    '  incl ms     %   self ms  area',
  );
  for (const row of summary.areas.slice(0, 25)) {
    lines.push(
      `  ${String(row.inclusiveMs).padStart(7)} ${String(row.percent).padStart(5)} ${String(row.selfMs).padStart(9)}  ${row.area}`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, count] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: tsx bench/profile-top.ts <file.cpuprofile> [count]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${formatSummary(summarise(profile, Number(count ?? 20)), path.basename(file))}\n`);
}
