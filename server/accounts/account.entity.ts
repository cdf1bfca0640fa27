import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, money, recordProperties } from '../db/columns.ts';
import { Family } from '../families/family.entity.ts';

export const ACCOUNT_TYPES = [
  'depository',
  'investment',
  'crypto',
  'property',
  'vehicle',
  'other_asset',
  'credit_card',
  'loan',
  'other_liability',
] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
export type AccountStatus = 'active' | 'draft' | 'disabled' | 'pending_deletion';

/** A place money sits (or is owed): a bank account, a brokerage, a loan... */
export class Account extends Record {
  family!: Family;
  name!: string;
  accountType!: AccountType;
  subtype: string | null = null;
  currency!: string;
  /** Today's balance, decimal string: kept by the account sync job. */
  balance: Opt<string> = '0';
  /** Today's cash (the balance less the holdings' value), kept by the account sync job. */
  cashBalance: Opt<string> = '0';
  /** The balance it was opened with: the anchor while the account has no valuation. */
  openingBalance: Opt<string> = '0';
  status: Opt<AccountStatus> = 'active';
}

export const AccountSchema = new EntitySchema<Account>({
  class: Account,
  tableName: 'accounts',
  properties: {
    ...recordProperties,
    family: { kind: 'm:1', entity: () => Family },
    name: { type: 'string' },
    accountType: { type: 'string' },
    subtype: { type: 'string', nullable: true },
    currency: { type: 'string' },
    balance: money,
    cashBalance: money,
    openingBalance: money,
    status: { type: 'string' },
  },
});
