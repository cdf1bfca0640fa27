import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';
import { Family } from '../families/family.entity.ts';

/** A tradable instrument. Shared ones have no family; a family's own are visible to it only. */
export class Security extends Record {
  family: Family | null = null;
  ticker!: string;
  name: string | null = null;
  exchangeOperatingMic: string | null = null;
  kind: Opt<'standard' | 'cash'> = 'standard';
}

export const SecuritySchema = new EntitySchema<Security>({
  class: Security,
  tableName: 'securities',
  properties: {
    ...recordProperties,
    family: { kind: 'm:1', entity: () => Family, nullable: true },
    ticker: { type: 'string' },
    name: { type: 'string', nullable: true },
    exchangeOperatingMic: { type: 'string', nullable: true },
    kind: { type: 'string' },
  },
});
