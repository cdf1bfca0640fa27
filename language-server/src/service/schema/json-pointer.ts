/** Resolves a local JSON pointer (`#/definitions/x`) in a schema; undefined when it leads nowhere. */
export function resolvePointer(schema: unknown, ref: string): Record<string, unknown> | undefined {
  if (!ref.startsWith('#')) return undefined;
  let current: unknown = schema;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current !== null && typeof current === 'object' && !Array.isArray(current)
    ? (current as Record<string, unknown>)
    : undefined;
}

/** A JSON pointer token for a key: `~` and `/` escaped. */
export function escapePointer(key: string): string {
  if (!key.includes('~') && !key.includes('/')) return key;
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
