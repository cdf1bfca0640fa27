/**
 * Spelling, shared by the two halves of the repository: the language service's "did you mean" and
 * the API's for an unknown member of a body. Plain functions; it imports nothing.
 */

/** Three rows of the distance table, reused by every call (grown as needed): no arrays per call. */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * Edit distance with adjacent transpositions (optimal string alignment), so that "Contxet" is one
 * step from "Context". Stops early and returns maxDistance + 1 once the distance must exceed it.
 * Only the band of cells within maxDistance of the diagonal is computed: a cell outside it is more
 * than maxDistance, and so is every cell whose cheapest path leaves it.
 */
export function editDistance(a: string, b: string, maxDistance = Infinity): number {
  if (Math.abs(a.length - b.length) > maxDistance) return maxDistance + 1;
  const width = b.length + 1;
  if (rows[0]!.length < width) rows = rows.map(() => new Int32Array(width * 2));
  // Past the largest possible distance: stands for the cells outside the band.
  const far = Math.max(a.length, b.length) + 1;
  const band = Math.min(maxDistance, far);
  let previous2 = rows[0]!;
  let previous = rows[1]!;
  let current = rows[2]!;
  for (let j = 0; j < width; j++) previous[j] = j <= band ? j : far;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - band);
    const to = Math.min(b.length, i + band);
    current[0] = i <= band ? i : far;
    if (from > 1) current[from - 1] = far;
    let rowMin = current[0]!;
    const ai = a.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const bj = b.charCodeAt(j - 1);
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        value = Math.min(value, previous2[j - 2]! + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (to < b.length) current[to + 1] = far;
    if (rowMin > maxDistance) return maxDistance + 1;
    const oldest = previous2;
    previous2 = previous;
    previous = current;
    current = oldest;
  }
  const distance = previous[b.length]!;
  return distance > maxDistance ? maxDistance + 1 : distance;
}

/**
 * Lowercase copies of the candidate lists asked about (the schema's lists, a validation's ids),
 * made once per list: no caller changes a list it has asked about.
 */
const lowercased = new WeakMap<readonly string[], readonly string[]>();
export const lowercaseOf = (candidates: readonly string[]): readonly string[] => {
  let lower = lowercased.get(candidates);
  if (!lower) lowercased.set(candidates, (lower = candidates.map((candidate) => candidate.toLowerCase())));
  return lower;
};

/**
 * The candidate nearest to `word` (ignoring case) within `maxDistance` edits, or undefined; of the
 * first `count` candidates only, when given. Ties go to the earlier candidate, so callers control
 * preference by order; a later one must be strictly nearer, so each is measured only that far.
 */
export function closest(
  word: string,
  candidates: readonly string[],
  maxDistance: number,
  count = candidates.length,
): string | undefined {
  const lowerWord = word.toLowerCase();
  const lower = lowercaseOf(candidates);
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (let i = 0; i < count && bestDistance > 0; i++) {
    const distance = editDistance(lowerWord, lower[i]!, bestDistance - 1);
    if (distance < bestDistance) {
      best = candidates[i];
      bestDistance = distance;
    }
  }
  return best;
}

/** The candidate nearest to a misspelt word, if one is near enough (of the first `count` only, when given). */
export function suggest(word: string, candidates: readonly string[], count?: number): string | undefined {
  return closest(word, candidates, Math.max(2, Math.floor(word.length / 4)), count);
}
