import type { ResponseErrorDetail } from './errors.ts';

/** Deepest nesting of objects and arrays a request body may have (the contract needs 3). */
export const MAX_JSON_DEPTH = 64;

/**
 * Longest array a request body may hold. The contract's own `maxItems` are lower (100 ids); this
 * bound refuses absurd arrays before validation, whose work (and error list) grows with the items.
 */
export const MAX_JSON_ARRAY_ITEMS = 1000;

/**
 * Most members and items a request body may hold in all. The largest bodies of the contract (1,000
 * exchange rates or security prices) hold about 6,000. Every member a schema does not define is an
 * error of its own in validation: a 16 MiB body of a million stray members took seconds there.
 */
export const MAX_JSON_VALUES = 20_000;

/** A container (object or array) met on the walk, with the way back to the root for its pointer. */
interface Frame {
  value: object;
  depth: number;
  key: string;
  parent: Frame | undefined;
}

function pointerOf(frame: Frame, root: string): string {
  const keys: string[] = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) {
    keys.push(at.key.replace(/~/g, '~0').replace(/\//g, '~1'));
  }
  return [root, ...keys.reverse()].join('/');
}

/**
 * The first place where a parsed JSON body breaks the shape limits, or undefined. The walk keeps
 * its own stack instead of recursing, so a body nested 100,000 levels deep (JSON.parse copes with
 * that) is refused here rather than overflowing the call stack of a later, recursive check.
 */
export function jsonShapeProblem(body: unknown, root = '/body'): ResponseErrorDetail | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const stack: Frame[] = [{ value: body, depth: 1, key: '', parent: undefined }];
  let values = 0;
  while (stack.length) {
    const frame = stack.pop()!;
    if (frame.depth > MAX_JSON_DEPTH) {
      return { path: pointerOf(frame, root), message: `body is nested more than ${MAX_JSON_DEPTH} levels deep` };
    }
    if (Array.isArray(frame.value) && frame.value.length > MAX_JSON_ARRAY_ITEMS) {
      return {
        path: pointerOf(frame, root),
        message: `an array in the body may have at most ${MAX_JSON_ARRAY_ITEMS} items, this one has ${frame.value.length}`,
      };
    }
    const entries: [string, unknown][] = Array.isArray(frame.value)
      ? frame.value.map((item, index) => [String(index), item])
      : Object.entries(frame.value);
    values += entries.length;
    if (values > MAX_JSON_VALUES) {
      return { path: root, message: `the body may hold at most ${MAX_JSON_VALUES} members and items in all` };
    }
    for (const [key, value] of entries) {
      if (value !== null && typeof value === 'object')
        stack.push({ value, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return undefined;
}
