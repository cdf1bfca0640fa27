import { closest } from '../edit-distance.ts';

/** The candidate nearest to a misspelt word, if one is near enough (of the first `count` only, when given). */
export function suggest(word: string, candidates: readonly string[], count?: number): string | undefined {
  return closest(word, candidates, Math.max(2, Math.floor(word.length / 4)), count);
}

/** " Did you mean 'x'?" for a suggestion, or nothing. */
export function hint(suggestion: string | undefined): string {
  return suggestion ? ` Did you mean '${suggestion}'?` : '';
}
