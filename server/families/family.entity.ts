import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';

/** A household: every other record belongs to exactly one family. */
export class Family extends Record {
  name!: string;
  currency: Opt<string> = 'USD';
  locale: Opt<string> = 'en-US';
  dateFormat: Opt<string> = '%Y-%m-%d';
}

export const FamilySchema = new EntitySchema<Family>({
  class: Family,
  tableName: 'families',
  properties: {
    ...recordProperties,
    name: { type: 'string' },
    currency: { type: 'string' },
    locale: { type: 'string' },
    dateFormat: { type: 'string' },
  },
});
