import { closest } from '../../../../common/spelling.ts';
import type { Range } from '../problem.ts';
import type { BNode } from '../reading/blueprint-node.ts';

/** A Problems line is cut off: a long enumeration shows its first values and points to the hover. */
const SHOWN_VALUES = 5;

/** What to say about a value outside an enum, and the replacement to offer when one is close. */
export interface EnumMistake {
  message: string;
  fix?: { title: string; range: Range; newText: string };
}

/**
 * The message for the value `node` of `name` that is none of `allowed`: the value with its app
 * label when it lacks one (a permission written `view_flow` for `idp_flows.view_flow`), a "did
 * you mean" when a string value is near one (or differs only in case), else the values, the first
 * few of a long enumeration. The fix replaces the value and keeps its quotes.
 */
export function enumMistake(name: string, node: BNode, allowed: readonly unknown[]): EnumMistake {
  const written = node.kind === 'scalar' && typeof node.value === 'string' ? node.value : undefined;
  const qualified = written === undefined || written.includes('.') ? [] : withAppLabel(written, allowed);
  if (written !== undefined && qualified.length > 0) {
    const names = qualified.map((value) => `'${value}'`).join(' or ');
    const part = name.includes('permission') ? 'codename' : 'name';
    const message = `'${written}' lacks its app label: ${name} is written <app>.<${part}>. Did you mean ${names}?`;
    const replacement = qualified.length === 1 ? replacementOf(node, written, qualified[0]!) : undefined;
    return { message, fix: replacement && { title: `Change to '${qualified[0]}'`, ...replacement } };
  }
  const suggestion = written === undefined ? undefined : nearValue(written, allowed);
  if (written !== undefined && suggestion !== undefined) {
    const message = `'${written}' is not one of the values of ${name}. Did you mean '${suggestion}'?`;
    const replacement = replacementOf(node, written, suggestion);
    return { message, fix: replacement && { title: `Change to '${suggestion}'`, ...replacement } };
  }
  // A choice the service compares as a string is listed as both 6 and "6": name it once.
  const values = [...new Set(allowed.map(String))];
  const shown =
    values.length > SHOWN_VALUES + 1
      ? `${values.slice(0, SHOWN_VALUES).join(', ')}, ... (${values.length} values; hover for all)`
      : values.join(', ');
  return { message: `${name} must be one of: ${shown}.` };
}

/** The values that are `written` with an app label before it (`idp_flows.view_flow` for `view_flow`), at most 3. */
function withAppLabel(written: string, allowed: readonly unknown[]): string[] {
  const ending = `.${written}`;
  return allowed.filter((value): value is string => typeof value === 'string' && value.endsWith(ending)).slice(0, 3);
}

/**
 * The string value nearest to `written` (ignoring case). Short words allow fewer edits, so that
 * `7` suggests no `6`: at most a third of the word, and at most a quarter of a long one.
 */
function nearValue(written: string, allowed: readonly unknown[]): string | undefined {
  const strings = allowed.filter((value): value is string => typeof value === 'string' && value !== '');
  const maxDistance = Math.min(Math.max(2, Math.floor(written.length / 4)), Math.floor(written.length / 3));
  return closest(written, strings, maxDistance);
}

/**
 * Where and how to write `suggestion` over the scalar `node` (whose value is `written`), keeping
 * its quotes. The text is not at hand here: a plain scalar spans exactly its value, a quoted one
 * without escapes (and on one line) its value and two quotes. Anything else gets no fix.
 */
function replacementOf(
  node: BNode,
  written: string,
  suggestion: string,
): { range: Range; newText: string } | undefined {
  const [start, end] = node.range;
  if (node.tag !== undefined) return undefined;
  if (end - start === written.length) {
    return { range: [start, end], newText: readsAsPlainString(suggestion) ? suggestion : JSON.stringify(suggestion) };
  }
  if (end - start === written.length + 2 && !/\s/.test(written)) {
    if (/["'\\]/.test(suggestion) || /[\n\r\t]/.test(suggestion))
      return { range: [start, end], newText: JSON.stringify(suggestion) };
    return { range: [start + 1, end - 1], newText: suggestion };
  }
  return undefined;
}

/** YAML words read as booleans or null rather than strings (core schema and the 1.1 ones). */
const specialWords = /^(true|false|null|yes|no|on|off|y|n)$/i;

function readsAsPlainString(value: string): boolean {
  return /^[A-Za-z_][\w./-]*$/.test(value) && !specialWords.test(value);
}
