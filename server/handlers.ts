import { accountsHandlers } from './accounts/accounts.handlers.ts';
import { balancesHandlers } from './balances/balances.handlers.ts';
import { categoriesHandlers } from './categories/categories.handlers.ts';
import { exchangeRatesHandlers } from './exchange-rates/exchange-rates.handlers.ts';
import { holdingsHandlers } from './holdings/holdings.handlers.ts';
import type { Handler, OperationId } from './http/contract.ts';
import { merchantsHandlers } from './merchants/merchants.handlers.ts';
import { securitiesHandlers } from './securities/securities.handlers.ts';
import { securityPricesHandlers } from './security-prices/security-prices.handlers.ts';
import { tagsHandlers } from './tags/tags.handlers.ts';
import { tradesHandlers } from './trades/trades.handlers.ts';
import { transactionsHandlers } from './transactions/transactions.handlers.ts';
import { transfersHandlers } from './transfers/transfers.handlers.ts';
import { valuationsHandlers } from './valuations/valuations.handlers.ts';

/**
 * Every implemented resource operation, by operationId. The sign-in operations need settings and
 * keys, so app.ts adds them (auth/auth.handlers.ts, auth/mobile-sso.handlers.ts), and so do the chat
 * operations (assistant/chats.handlers.ts), the import operations (imports/imports.handlers.ts) and the signed-in user's (users/users.handlers.ts). The router refuses to start when an operation has none.
 */
export const handlers: Partial<{ [K in OperationId]: Handler<K> }> = {
  ...accountsHandlers,
  ...categoriesHandlers,
  ...merchantsHandlers,
  ...tagsHandlers,
  ...securitiesHandlers,
  ...securityPricesHandlers,
  ...exchangeRatesHandlers,
  ...transactionsHandlers,
  ...transfersHandlers,
  ...valuationsHandlers,
  ...tradesHandlers,
  ...holdingsHandlers,
  ...balancesHandlers,
};
