import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const GLOB_CHARS = /[*?]/;

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** One path segment pattern (`*`, `?`, literal characters) as an anchored regular expression. */
function segmentRegExp(segment: string): RegExp {
  let source = '';
  for (const ch of segment) {
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Whether the segments of a relative path match the pattern segments, `**` matching zero or more segments. */
function matchSegments(patterns: readonly (RegExp | '**')[], parts: readonly string[]): boolean {
  const [first, ...rest] = patterns;
  if (first === undefined) return parts.length === 0;
  if (first === '**') {
    for (let skip = 0; skip <= parts.length; skip++) if (matchSegments(rest, parts.slice(skip))) return true;
    return false;
  }
  return parts.length > 0 && first.test(parts[0]!) && matchSegments(rest, parts.slice(1));
}

/** Every file under `dir` (relative paths, `/`-separated), skipping node_modules and dot-directories. */
function walk(dir: string, prefix: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      walk(path.join(dir, entry.name), relative, out);
    } else if (entry.isFile() || (entry.isSymbolicLink() && isFile(path.join(dir, entry.name)))) {
      out.push(relative);
    }
  }
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The files a glob matches (`*` and `?` within a segment, `**` across segments), sorted. The literal
 * leading segments are the directory walked; results keep the pattern's form (relative stays relative).
 */
export function expandGlob(pattern: string, cwd: string = process.cwd()): string[] {
  const segments = pattern.split(/[\\/]/);
  const firstGlob = segments.findIndex((segment) => isGlob(segment));
  if (firstGlob < 0) return isFile(path.resolve(cwd, pattern)) ? [pattern] : [];
  const baseSegments = segments.slice(0, firstGlob);
  const base = baseSegments.join('/');
  const root = path.resolve(cwd, base === '' && pattern.startsWith('/') ? '/' : base || '.');
  const patterns = segments.slice(firstGlob).map((segment) => (segment === '**' ? '**' : segmentRegExp(segment)));
  const files: string[] = [];
  walk(root, '', files);
  return files
    .filter((file) => matchSegments(patterns, file.split('/')))
    .map((file) => (base === '' ? file : `${base}/${file}`))
    .sort();
}
