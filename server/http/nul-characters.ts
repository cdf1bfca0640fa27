import type { ResponseErrorDetail } from './errors.ts';

/**
 * PostgreSQL text cannot hold U+0000, so a string carrying one is refused up front as a
 * validation problem (with its pointer) instead of failing in the database.
 */
export function nulCharacterProblems(
  value: unknown,
  pointer: string,
  found: ResponseErrorDetail[] = [],
): ResponseErrorDetail[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      found.push({ path: pointer, message: `${pointer.split('/').at(-1)} must not contain NUL characters` });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => nulCharacterProblems(item, `${pointer}/${index}`, found));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) found.push({ path: pointer, message: 'field names must not contain NUL characters' });
      nulCharacterProblems(item, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, found);
    }
  }
  return found;
}
