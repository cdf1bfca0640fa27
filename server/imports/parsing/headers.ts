/**
 * Matching CSV header labels to the labels an import is configured with. People and exporters
 * write the same header many ways (`Transaction Date`, `transaction-date`, `TRANSACTION_DATE*`),
 * so both sides are compared in one normalised form.
 */

const BOM = '\uFEFF';
const REQUIRED_MARKERS = /\*/g;
const SEPARATOR_RUNS = /[\s_-]+/gu;
const EDGE_SEPARATORS = /^_+|_+$/g;

/**
 * The form labels are compared in: NFC, lowercase, without a leading BOM or any `*` (a
 * "required" marker), each run of whitespace, hyphens and underscores one `_`, none at the ends.
 */
export function normaliseLabel(label: string): string {
  const text = label.startsWith(BOM) ? label.slice(1) : label;
  // NFC so that `é` typed as one code point and as `e` + accent (macOS exports) are one label.
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(REQUIRED_MARKERS, '')
    .replace(SEPARATOR_RUNS, '_')
    .replace(EDGE_SEPARATORS, '');
}

/**
 * The index of the first header matching the first of `labels` that any header matches (pass the
 * configured label first, then its aliases), or undefined. Blank, null and undefined labels are
 * skipped, so they never match a blank header.
 */
export function columnIndex(headers: string[], labels: (string | null | undefined)[]): number | undefined {
  const normalised = headers.map(normaliseLabel);
  for (const label of labels) {
    if (label === null || label === undefined) continue;
    const wanted = normaliseLabel(label);
    if (wanted === '') continue;
    const index = normalised.indexOf(wanted);
    if (index !== -1) return index;
  }
  return undefined;
}

/** The non-empty normalised header names that occur more than once, each listed once, in the order they repeat. */
export function duplicateHeaders(headers: string[]): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const header of headers) {
    const name = normaliseLabel(header);
    if (name === '') continue;
    if (seen.has(name)) duplicates.add(name);
    else seen.add(name);
  }
  return [...duplicates];
}
