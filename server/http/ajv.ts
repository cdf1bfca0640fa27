import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Options } from 'ajv';

const calendarDate = fullFormats.date as { validate: (value: string) => boolean };

/**
 * The JSON Schema 2020-12 validator the contract needs (OpenAPI 3.1), with the OpenAPI number
 * and string formats. Shared by request validation in the server and response checks in tests.
 */
export function createOpenApiAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, ...options });
  addFormats.default(ajv, { mode: 'full' });
  // PostgreSQL has no year 0, so "0000-01-01" is refused here rather than by the database.
  ajv.addFormat('date', {
    type: 'string',
    validate: (value: string) => calendarDate.validate(value) && !value.startsWith('0000'),
  });
  const int = (bits: number) => (value: number) => Number.isInteger(value) && Math.abs(value) <= 2 ** (bits - 1);
  ajv.addFormat('int32', { type: 'number', validate: int(32) });
  ajv.addFormat('int64', { type: 'number', validate: int(64) });
  for (const name of ['float', 'double']) ajv.addFormat(name, { type: 'number', validate: () => true });
  for (const name of ['byte', 'binary', 'password']) ajv.addFormat(name, { type: 'string', validate: () => true });
  return ajv;
}
