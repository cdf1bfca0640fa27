import type { components } from '../core/api-types.generated.ts';

export type ImportType = components['schemas']['ImportType'];
export type ImportStatus = components['schemas']['ImportStatus'];
export type ImportConfiguration = components['schemas']['ImportConfiguration'];
export type NumberFormat = components['schemas']['NumberFormat'];

/** The members of a configuration, in the contract's order. */
export const CONFIGURATION_KEYS = [
  'date_col_label',
  'amount_col_label',
  'name_col_label',
  'category_col_label',
  'tags_col_label',
  'notes_col_label',
  'account_col_label',
  'currency_col_label',
  'ticker_col_label',
  'exchange_operating_mic_col_label',
  'qty_col_label',
  'price_col_label',
  'entity_type_col_label',
  'date_format',
  'number_format',
  'signage_convention',
  'col_sep',
] as const satisfies readonly (keyof ImportConfiguration)[];

type ConfigurationInput = { [K in keyof ImportConfiguration]?: ImportConfiguration[K] | undefined };

/** The configuration a request sets: what it sends, null for the rest (the type's defaults apply). */
export function configurationOf(input: ConfigurationInput): ImportConfiguration {
  return Object.fromEntries(CONFIGURATION_KEYS.map((key) => [key, input[key] ?? null])) as ImportConfiguration;
}

/** `current` changed by the members `patch` sends (a PATCH): members it does not send keep their value. */
export function changedConfiguration(current: ImportConfiguration, patch: ConfigurationInput): ImportConfiguration {
  return Object.fromEntries(
    CONFIGURATION_KEYS.map((key) => [key, key in patch && patch[key] !== undefined ? patch[key] : current[key]]),
  ) as ImportConfiguration;
}
