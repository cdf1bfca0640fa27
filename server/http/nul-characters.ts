import type { ResponseErrorDetail } from './errors.ts';

/** Whether a NUL is anywhere in the value, its names included: the walk without the pointers. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value && typeof value === 'object') {
    for (const key in value) {
      if (key.includes('\u0000') || holdsNul((value as Record<string, unknown>)[key])) return true;
    }
  }
  return false;
}

/**
 * PostgreSQL text cannot hold U+0000, so a string carrying one is refused up front as a
 * validation problem (with its pointer) instead of failing in the database. Every request is
 * checked, so the pointers are built only when there is a NUL to report.
 */
export function nulCharacterProblems(value: unknown, pointer: string): ResponseErrorDetail[] {
  return holdsNul(value) ? problemsAt(value, pointer, []) : [];
}

function problemsAt(value: unknown, pointer: string, found: ResponseErrorDetail[]): ResponseErrorDetail[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      found.push({ path: pointer, message: `${pointer.split('/').at(-1)} must not contain NUL characters` });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => problemsAt(item, `${pointer}/${index}`, found));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) found.push({ path: pointer, message: 'field names must not contain NUL characters' });
      problemsAt(item, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, found);
    }
  }
  return found;
}
