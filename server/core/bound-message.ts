/**
 * The words of a refused bound, one wording for the contract's checks of JSON numbers
 * (server/http/validation-errors.ts) and the server's checks of decimal strings
 * (server/core/money/decimal-input.ts): a client reads the same sentence whichever it sent.
 */
export type BoundKeyword = 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum';

const WORDS: Record<BoundKeyword, string> = {
  minimum: 'at least',
  maximum: 'at most',
  exclusiveMinimum: 'greater than',
  exclusiveMaximum: 'less than',
};

export function isBoundKeyword(keyword: string): keyword is BoundKeyword {
  return keyword in WORDS;
}

export function boundMessage(field: string, keyword: BoundKeyword, limit: number | string): string {
  return `${field} must be ${WORDS[keyword]} ${limit}`;
}
