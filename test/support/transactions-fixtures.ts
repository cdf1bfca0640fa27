import type { TestServer } from './test-server.ts';

/** Shared setup of the transactions tests: every record is created through the API, as a client would. */

export interface Ref {
  id: string;
  name: string;
  [field: string]: unknown;
}

export interface Fixtures {
  accounts: { checking: Ref; savings: Ref; card: Ref };
  categories: { groceries: Ref; dining: Ref; travel: Ref };
  merchants: { wholeFoods: Ref; blueBottle: Ref; airline: Ref };
  tags: { reimbursable: Ref; vacation: Ref; work: Ref };
}

/** The transaction object of the API (the fields the tests read). */
export interface TransactionData {
  id: string;
  date: string;
  amount: string;
  amount_cents: number;
  signed_amount_cents: number;
  currency: string;
  name: string;
  notes: string | null;
  classification: 'income' | 'expense' | 'transfer';
  transfer: { id: string; kind: string; other_account: { id: string; name: string; account_type: string } } | null;
  account: { id: string; name: string; account_type: string };
  category: { id: string; name: string; color: string; icon: string | null } | null;
  merchant: { id: string; name: string } | null;
  tags: { id: string; name: string; color: string }[];
  created_at: string;
  updated_at: string;
}

async function created(
  server: TestServer,
  operationId: 'createAccount' | 'createCategory' | 'createMerchant' | 'createTag',
  key: string,
  body: unknown,
): Promise<Ref> {
  const response = await server.api.call(operationId, { key, body });
  if (response.status !== 201)
    throw new Error(`${operationId} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data as Ref;
}

/**
 * Three accounts, categories, merchants and tags in the family of `key`. `prefix` keeps names apart
 * when one family needs several sets (names are unique per family).
 */
export async function createFixtures(server: TestServer, key: string, prefix = ''): Promise<Fixtures> {
  const account = (name: string, account_type: string) =>
    created(server, 'createAccount', key, { account: { name: `${prefix}${name}`, account_type } });
  const category = (name: string, color: string, icon: string) =>
    created(server, 'createCategory', key, { category: { name: `${prefix}${name}`, color, icon } });
  const merchant = (name: string) => created(server, 'createMerchant', key, { merchant: { name: `${prefix}${name}` } });
  const tag = (name: string, color: string) =>
    created(server, 'createTag', key, { tag: { name: `${prefix}${name}`, color } });
  return {
    accounts: {
      checking: await account('Everyday Checking', 'depository'),
      savings: await account('Rainy Day Savings', 'depository'),
      card: await account('Travel Card', 'credit_card'),
    },
    categories: {
      groceries: await category('Groceries', '#22C55E', 'shopping-cart'),
      dining: await category('Coffee Shops', '#A0522D', 'coffee'),
      travel: await category('Travel', '#3B82F6', 'plane'),
    },
    merchants: {
      wholeFoods: await merchant('Whole Foods Market'),
      blueBottle: await merchant('Blue Bottle Coffee'),
      airline: await merchant('TAP Air Portugal'),
    },
    tags: {
      reimbursable: await tag('Reimbursable', '#10B981'),
      vacation: await tag('Vacation', '#F59E0B'),
      work: await tag('Work', '#6366F1'),
    },
  };
}

/** Creates a transaction through the API; fails loudly unless the answer is 201. */
export async function createTransaction(
  server: TestServer,
  key: string,
  transaction: Record<string, unknown>,
): Promise<TransactionData> {
  const response = await server.api.call('createTransaction', { key, body: { transaction } });
  if (response.status !== 201)
    throw new Error(`createTransaction answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data as TransactionData;
}

export interface RowCounts {
  entries: number;
  transactions: number;
  taggings: number;
}

/** Rows of the three tables a transaction writes to. */
export async function rowCounts(server: TestServer): Promise<RowCounts> {
  const [row] = await server.query<RowCounts>(`select
    (select count(*) from entries)::int as entries,
    (select count(*) from transactions)::int as transactions,
    (select count(*) from taggings)::int as taggings`);
  return row!;
}

export interface StoredTransaction {
  entry_id: string;
  detail_id: string;
  account_id: string;
  amount: string;
  currency: string;
  date: string;
  name: string;
  notes: string | null;
  category_id: string | null;
  merchant_id: string | null;
  tag_ids: string[];
}

/** The stored rows of a transaction (entry, details, taggings), or undefined when the entry is gone. */
export async function storedTransaction(server: TestServer, entryId: string): Promise<StoredTransaction | undefined> {
  const [row] = await server.query<StoredTransaction>(
    `select e.id as entry_id, e.entryable_id as detail_id, e.account_id, e.amount::text as amount, e.currency,
       to_char(e.date, 'YYYY-MM-DD') as date, e.name, e.notes, t.category_id, t.merchant_id,
       coalesce((select array_agg(x.tag_id::text order by x.tag_id) from taggings x
         where x.taggable_type = 'Transaction' and x.taggable_id = e.entryable_id), '{}') as tag_ids
     from entries e left join transactions t on t.id = e.entryable_id
     where e.id = $1`,
    [entryId],
  );
  return row;
}

/** Ids of a page of transactions, in the order the API returned them. */
export function idsOf(data: { id: string }[]): string[] {
  return data.map((item) => item.id);
}
