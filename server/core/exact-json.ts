import { randomBytes } from 'node:crypto';

/**
 * Integers past 2^53 in JSON answers (docs/money.md#minor-units). A `*_cents` figure can pass it (a
 * balance near the balance bound, a net worth, an amount in thousandths), and a JavaScript number
 * there is a neighbour of the figure, not the figure. JSON itself has no such limit: `answerJson`
 * writes these as their digits, and a client that reads 64-bit integers gets them exactly.
 */

/**
 * What JSON.stringify writes for an ExactInteger: a string of a marker and the digits, which
 * `answerJson` then unquotes. The marker starts with U+0000, which no stored text holds (PostgreSQL
 * refuses it) and no request may send, and carries a nonce of this process, so text from a client
 * can never be taken for one.
 */
const MARK = `\u0000int:${randomBytes(6).toString('hex')}:`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replaceAll('\\', '\\\\')}(-?\\d+)"`, 'g');

/** How many ExactIntegers the JSON.stringify under way wrote (it runs synchronously, so one at a time). */
let written = 0;

/** An integer beyond Number.MAX_SAFE_INTEGER, kept as its digits. */
export class ExactInteger {
  constructor(readonly digits: string) {}

  toJSON(): string {
    written++;
    return MARK + this.digits;
  }
}

/** An integer as an answer holds it: a number while that is exact, an ExactInteger beyond. */
export type JsonInteger = number | ExactInteger;

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function jsonInteger(value: bigint): JsonInteger {
  return value <= SAFE && value >= -SAFE ? Number(value) : new ExactInteger(value.toString());
}

/** JSON text of `value`, with each ExactInteger written as its digits. */
export function answerJson(value: unknown): string {
  written = 0;
  const text = JSON.stringify(value);
  return written ? text.replace(MARKED, '$1') : text;
}
