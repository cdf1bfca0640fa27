import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';
import { Category } from '../categories/category.entity.ts';
import { Merchant } from '../merchants/merchant.entity.ts';

/** The transaction-specific details of an entry. */
export class Transaction extends Record {
  category: Category | null = null;
  merchant: Merchant | null = null;
  kind: Opt<string> = 'standard';
}

export const TransactionSchema = new EntitySchema<Transaction>({
  class: Transaction,
  tableName: 'transactions',
  properties: {
    ...recordProperties,
    category: { kind: 'm:1', entity: () => Category, nullable: true },
    merchant: { kind: 'm:1', entity: () => Merchant, nullable: true },
    kind: { type: 'string' },
  },
});
