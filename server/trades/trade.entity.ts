import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, money, recordProperties } from '../db/columns.ts';
import { Security } from '../securities/security.entity.ts';

/** The details of a trade entry: a buy (qty > 0) or sell (qty < 0) of a security. */
export class Trade extends Record {
  security!: Security;
  /** Signed decimal string. */
  qty!: string;
  price!: string;
  fee: Opt<string> = '0';
  currency!: string;
  investmentActivityLabel: string | null = null;
}

export const TradeSchema = new EntitySchema<Trade>({
  class: Trade,
  tableName: 'trades',
  properties: {
    ...recordProperties,
    security: { kind: 'm:1', entity: () => Security },
    qty: { type: 'decimal', columnType: 'numeric(24,8)' },
    price: money,
    fee: money,
    currency: { type: 'string' },
    investmentActivityLabel: { type: 'string', nullable: true },
  },
});
