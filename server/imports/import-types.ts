import type { ImportConfiguration, ImportType } from './import-configuration.ts';

/** What a cell of a row means, whatever its header says. */
export type FieldKey =
  | 'date'
  | 'amount'
  | 'name'
  | 'category'
  | 'tags'
  | 'notes'
  | 'account'
  | 'currency'
  | 'ticker'
  | 'exchange_operating_mic'
  | 'qty'
  | 'price'
  | 'entity_type'
  | 'color'
  | 'parent'
  | 'icon'
  | 'transaction_type'
  | 'resource_type'
  | 'active'
  | 'effective_date'
  | 'conditions'
  | 'actions'
  | 'from'
  | 'to'
  | 'rate';

type LabelKey = Extract<keyof ImportConfiguration, `${string}_col_label`>;

/** One column a type reads: its meaning, the label that configures it, the headers tried by default. */
export interface ColumnSpec {
  key: FieldKey;
  /** The configuration member naming its header; none for types with a fixed layout. */
  label?: LabelKey;
  /** Headers tried when no label is configured (compared normalised: case, spaces, `-`, `_`). */
  headers: string[];
  required: boolean;
}

export interface TypeSpec {
  columns: ColumnSpec[];
  /** Rows go into an account: the import's `account_id`, else an `account` column naming one. */
  intoAccount: boolean;
  /** Formats this type always uses, whatever the configuration says (another application's export). */
  fixed?: Partial<Pick<ImportConfiguration, 'date_format' | 'number_format' | 'signage_convention'>>;
  /** Date formats tried in turn when the configuration sets none (one publisher, two files). */
  dateFormats?: string[];
  /**
   * Columns a header may have none of, and instead one column per currency (the ECB layout): each
   * cell is then a value in that column's currency. A header with some of them needs all.
   */
  currencyColumns?: FieldKey[];
}

const column = (key: FieldKey, headers: string[], required = false, label?: LabelKey): ColumnSpec => ({
  key,
  headers,
  required,
  ...(label ? { label } : {}),
});

const date = column('date', ['date'], true, 'date_col_label');
const currency = column('currency', ['currency'], false, 'currency_col_label');
const account = column('account', ['account', 'account_name'], false, 'account_col_label');

/** The columns of each type (docs/imports.md#columns-per-type), with the defaults a bank export usually has. */
export const TYPE_SPECS: Record<ImportType, TypeSpec> = {
  TransactionImport: {
    intoAccount: true,
    columns: [
      date,
      column('amount', ['amount'], true, 'amount_col_label'),
      column('name', ['name', 'description', 'payee'], false, 'name_col_label'),
      column('category', ['category'], false, 'category_col_label'),
      column('tags', ['tags', 'labels'], false, 'tags_col_label'),
      column('notes', ['notes', 'memo'], false, 'notes_col_label'),
      currency,
      account,
    ],
  },
  TradeImport: {
    intoAccount: true,
    columns: [
      date,
      column('ticker', ['ticker', 'symbol'], true, 'ticker_col_label'),
      column('qty', ['qty', 'quantity', 'shares'], true, 'qty_col_label'),
      column('price', ['price'], true, 'price_col_label'),
      column('exchange_operating_mic', ['exchange_operating_mic', 'mic'], false, 'exchange_operating_mic_col_label'),
      column('name', ['name'], false, 'name_col_label'),
      currency,
      account,
    ],
  },
  AccountImport: {
    intoAccount: false,
    columns: [
      column('name', ['name', 'account_name'], true, 'name_col_label'),
      column('entity_type', ['account_type', 'type', 'entity_type'], true, 'entity_type_col_label'),
      column('amount', ['balance', 'amount'], true, 'amount_col_label'),
      currency,
      column('date', ['balance_date', 'date'], false, 'date_col_label'),
    ],
  },
  CategoryImport: {
    intoAccount: false,
    columns: [
      column('name', ['name'], true),
      column('color', ['color']),
      column('parent', ['parent_category', 'parent']),
      column('icon', ['icon', 'lucide_icon']),
    ],
  },
  ExternalImport: {
    intoAccount: false,
    fixed: { date_format: '%m/%d/%Y', number_format: '1,234.56', signage_convention: 'inflows_positive' },
    columns: [
      column('date', ['Date'], true),
      column('amount', ['Amount'], true),
      column('account', ['Account Name'], true),
      column('name', ['Description']),
      column('category', ['Category']),
      column('tags', ['Labels']),
      column('currency', ['Currency']),
      column('notes', ['Notes']),
      column('transaction_type', ['Transaction Type'], true),
    ],
  },
  RuleImport: {
    intoAccount: false,
    columns: [
      column('name', ['name']),
      column('resource_type', ['resource_type'], true),
      column('active', ['active']),
      column('effective_date', ['effective_date']),
      column('conditions', ['conditions'], true),
      column('actions', ['actions'], true),
    ],
  },
  ExchangeRateImport: {
    intoAccount: false,
    // The ECB's historical file writes 2026-11-27, its daily file 27 November 2026.
    dateFormats: ['%Y-%m-%d', '%d %B %Y'],
    currencyColumns: ['from', 'to', 'rate'],
    columns: [date, column('from', ['from']), column('to', ['to']), column('rate', ['rate'])],
  },
};

/** Defaults of the formats when neither the type nor the configuration sets them. */
export const DEFAULT_FORMATS = {
  date_format: '%Y-%m-%d',
  number_format: '1,234.56',
  signage_convention: 'inflows_positive',
  col_sep: ',',
} as const;
