/**
 * Edit distance with adjacent transpositions (optimal string alignment), so that "Contxet" is one
 * step from "Context". Stops early and returns maxDistance + 1 once the distance must exceed it.
 */
export function editDistance(a: string, b: string, maxDistance = Infinity): number {
  if (Math.abs(a.length - b.length) > maxDistance) return maxDistance + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, previous2[j - 2]! + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > maxDistance) return maxDistance + 1;
    previous2 = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate nearest to `word` (ignoring case) within `maxDistance` edits, or undefined.
 * Ties go to the earlier candidate, so callers control preference by order.
 */
export function closest(word: string, candidates: readonly string[], maxDistance: number): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase(), maxDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
