import { EntitySchema } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';
import { Family } from '../families/family.entity.ts';

/** Who a transaction was with. */
export class Merchant extends Record {
  family!: Family;
  name!: string;
}

export const MerchantSchema = new EntitySchema<Merchant>({
  class: Merchant,
  tableName: 'merchants',
  properties: {
    ...recordProperties,
    family: { kind: 'm:1', entity: () => Family },
    name: { type: 'string' },
  },
});
