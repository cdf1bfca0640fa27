import { randomBytes } from 'node:crypto';

/**
 * Integers past 2^53 in JSON answers (docs/money.md#minor-units). A `*_cents` figure can pass it (a
 * balance near the balance bound, a net worth, an amount in thousandths), and a JavaScript number
 * there is a neighbour of the figure, not the figure. JSON itself has no such limit: `answerJson`
 * writes these as their digits, and a client that reads 64-bit integers gets them exactly.
 */

/**
 * What JSON.stringify writes for a JsonText: a string of a marker and the text's place, which
 * `answerJson` then replaces with the text. The marker starts with U+0000, which no stored text holds
 * (PostgreSQL refuses it) and no request may send, and carries a nonce of this process, so text
 * from a client can never be taken for one.
 */
const MARK = `\u0000json:${randomBytes(6).toString('hex')}:`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replaceAll('\\', '\\\\')}(\\d+)"`, 'g');

/**
 * The texts of the JsonTexts the JSON.stringify under way wrote (it runs synchronously, so one at a
 * time). Each marker names its text's place, so texts left by a JSON.stringify that threw midway
 * only move the places along.
 */
let written: string[] = [];

/**
 * JSON text an answer takes as it is: an integer's digits, or a stored document (a tool call's
 * result, kept as jsonb, whose figures JSON.parse would round past 2^53). The text must be JSON.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): string {
    return MARK + (written.push(this.text) - 1);
  }
}

/** An integer beyond Number.MAX_SAFE_INTEGER, kept as its digits. */
export class ExactInteger extends JsonText {}

/** An integer as an answer holds it: a number while that is exact, an ExactInteger beyond. */
export type JsonInteger = number | ExactInteger;

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function jsonInteger(value: bigint): JsonInteger {
  return value <= SAFE && value >= -SAFE ? Number(value) : new ExactInteger(value.toString());
}

/** JSON text of `value`, with each JsonText (an ExactInteger's digits among them) written as it is. */
export function answerJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (!written.length) return text;
  const texts = written;
  written = [];
  return text.replace(MARKED, (_, place: string) => texts[Number(place)]!);
}
