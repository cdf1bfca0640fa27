/** Parameter schemas shared by several tools: each one bounded, so a model cannot ask for unbounded work. */

/**
 * A calendar date, `YYYY-MM-DD`. The pattern keeps years at 1000-9999: PostgreSQL has no year 0,
 * and a date it refuses would fail the job instead of answering the model.
 */
export function dateParameter(description: string) {
  return { type: 'string', format: 'date', pattern: '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}$', description };
}

/** Names of the family's records (accounts, categories...), matched case-insensitively. */
export function nameListParameter(description: string) {
  return {
    type: 'array',
    maxItems: 20,
    items: { type: 'string', minLength: 1, maxLength: 255 },
    description,
  };
}

/** Defaults of the paged tools. */
export const PAGE_DEFAULTS = { page: 1, pageSize: 25 } as const;

/** `page` and `page_size` of a paged tool. */
export const PAGE_PARAMETERS = {
  page: { type: 'integer', minimum: 1, maximum: 10000, description: 'Page number, from 1 (default 1).' },
  page_size: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    description: `Rows per page, at most 100 (default ${PAGE_DEFAULTS.pageSize}).`,
  },
};
