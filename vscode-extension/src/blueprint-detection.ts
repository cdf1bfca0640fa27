/** `# yaml-language-server: $schema=<location>`, read the way the language server reads it. */
const MODELINE = /^#\s*yaml-language-server\s*:\s*\$schema=(\S+)/m;
/** The modeline is only looked for near the top, as the language server does. */
const MODELINE_WINDOW = 4096;

const TOP_LEVEL_KEYS = new Set(['version', 'metadata', 'context', 'entries']);

/** A key at column 0: plain, or quoted with single or double quotes. */
const TOP_LEVEL_KEY = /^(?:"([^"]*)"|'([^']*)'|([^\s#'"{[\-?:][^:#]*?))\s*:(?:\s|$)/;

/**
 * Whether a YAML text is a blueprint: its modeline names a blueprint schema, or its first top-level
 * key is one of `version`, `metadata`, `context`, `entries` and it has `entries`. Line-based and
 * stopping early: it runs on every YAML document VS Code opens.
 */
export function isBlueprintText(text: string): boolean {
  const modeline = MODELINE.exec(text.slice(0, MODELINE_WINDOW))?.[1];
  if (modeline !== undefined) return /blueprint/i.test(modeline);
  let first = true;
  for (const key of topLevelKeys(text)) {
    if (first && !TOP_LEVEL_KEYS.has(key)) return false;
    first = false;
    if (key === 'entries') return true;
  }
  return false;
}

/** The keys of the first document's root mapping, in order; none when the root is not a block mapping. */
function* topLevelKeys(text: string): Generator<string> {
  let seen = false;
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, text[end - 1] === '\r' ? end - 1 : end);
    start = end + 1;
    if (line === '' || /^\s/.test(line) || line.startsWith('#') || line.startsWith('%')) continue;
    if (line.startsWith('---') || line.startsWith('...')) {
      // A second document starts: blueprints are read from the first one only.
      if (seen) return;
      continue;
    }
    const key = TOP_LEVEL_KEY.exec(line);
    if (!key) {
      if (!seen) return;
      continue;
    }
    seen = true;
    yield key[1] ?? key[2] ?? key[3]!.trimEnd();
  }
}
