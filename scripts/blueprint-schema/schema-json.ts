/**
 * A JSON value as the generator builds it. `bigint` carries integer bounds that a JavaScript
 * number cannot hold exactly (such as 9223372036854775807); they are written as plain digits.
 */
export type SchemaValue = string | number | bigint | boolean | null | SchemaValue[] | SchemaObject;

/** A JSON object, such as a JSON Schema or one of its parts. */
export interface SchemaObject {
  [key: string]: SchemaValue;
}

const BIGINT_MARK = '\u0000bigint:';

/** The schema as the committed file holds it: 2-space JSON with a trailing newline. */
export function formatSchemaJson(schema: SchemaObject): string {
  const text = JSON.stringify(
    schema,
    (_key, value: unknown) => (typeof value === 'bigint' ? `${BIGINT_MARK}${value}` : value),
    2,
  );
  // The mark is quoted by JSON.stringify (its NUL as \u0000); unquote it to leave bare digits.
  return `${text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1')}\n`;
}
