import { AccountSchema } from '../accounts/account.entity.ts';
import { ApiKeySchema } from '../api-keys/api-key.entity.ts';
import { CategorySchema } from '../categories/category.entity.ts';
import { EntrySchema } from '../entries/entry.entity.ts';
import { FamilySchema } from '../families/family.entity.ts';
import { MerchantSchema } from '../merchants/merchant.entity.ts';
import { SecuritySchema } from '../securities/security.entity.ts';
import { TagSchema } from '../tags/tag.entity.ts';
import { TaggingSchema } from '../tags/tagging.entity.ts';
import { TradeSchema } from '../trades/trade.entity.ts';
import { TransactionSchema } from '../transactions/transaction.entity.ts';
import { UserSchema } from '../users/user.entity.ts';
import { ValuationSchema } from '../valuations/valuation.entity.ts';

/** Every entity the ORM knows, in one list. */
export const entities = [
  FamilySchema,
  UserSchema,
  ApiKeySchema,
  AccountSchema,
  CategorySchema,
  MerchantSchema,
  TagSchema,
  TaggingSchema,
  SecuritySchema,
  EntrySchema,
  TransactionSchema,
  ValuationSchema,
  TradeSchema,
];
