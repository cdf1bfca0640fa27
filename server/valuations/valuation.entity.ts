import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';

/** The details of a valuation entry: a statement of the account's balance on its date. */
export class Valuation extends Record {
  kind: Opt<string> = 'reconciliation';
}

export const ValuationSchema = new EntitySchema<Valuation>({
  class: Valuation,
  tableName: 'valuations',
  properties: {
    ...recordProperties,
    kind: { type: 'string' },
  },
});
