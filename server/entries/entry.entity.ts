import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, money, recordProperties } from '../db/columns.ts';
import { Account } from '../accounts/account.entity.ts';
import { Family } from '../families/family.entity.ts';

/** What an entry's details are: one row in transactions, valuations or trades. */
export type EntryableType = 'Transaction' | 'Valuation' | 'Trade';

/**
 * One dated amount on an account. The kind-specific columns live in a detail row
 * (`entryableType` + `entryableId`), as the reference service models entries.
 * `family` repeats the account's family so every family-scoped query reads one table.
 */
export class Entry extends Record {
  family!: Family;
  account!: Account;
  entryableType!: EntryableType;
  entryableId!: string;
  /** Signed decimal string: > 0 is an outflow (expense), < 0 an inflow (income). */
  amount!: string;
  currency!: string;
  /** Calendar date, `YYYY-MM-DD`. */
  date!: string;
  name!: string;
  notes: string | null = null;
  excluded: Opt<boolean> = false;
  /** The rate from `currency` into the account's that the client gave (decimal string), else null. */
  exchangeRate: string | null = null;
  /** The client's id of a transaction and where it comes from, both or neither (unique per account). */
  externalId: string | null = null;
  source: string | null = null;
}

export const EntrySchema = new EntitySchema<Entry>({
  class: Entry,
  tableName: 'entries',
  properties: {
    ...recordProperties,
    family: { kind: 'm:1', entity: () => Family },
    account: { kind: 'm:1', entity: () => Account },
    entryableType: { type: 'string' },
    entryableId: { type: 'uuid' },
    amount: money,
    currency: { type: 'string' },
    date: { type: 'string', columnType: 'date' },
    name: { type: 'string' },
    notes: { type: 'text', nullable: true },
    excluded: { type: 'boolean' },
    exchangeRate: { type: 'decimal', columnType: 'numeric(22,12)', nullable: true },
    externalId: { type: 'string', length: 255, nullable: true },
    source: { type: 'string', length: 64, nullable: true },
  },
});
