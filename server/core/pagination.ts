import type { components } from './api-types.generated.ts';

/** The page a list request asks for, after the contract has checked the bounds. */
export interface PageRequest {
  page: number;
  perPage: number;
}

/** The `meta` member of every collection response, as the contract defines it. */
export type PaginationMeta = components['schemas']['PaginationMeta'];

/** The page parameters every list operation takes. */
type PageQuery = { page?: components['parameters']['Page']; per_page?: components['parameters']['PerPage'] };

/** Defaults from the contract: page 1, 25 per page (a chat's messages: 50, as the reference pages them). */
export function pageRequest(query: PageQuery, defaultPerPage = 25): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? defaultPerPage };
}

/** `exact` is false when the listing stopped counting at its bound (ListingQuery.bounded). */
export function paginationMeta({ page, perPage }: PageRequest, totalCount: number, exact = true): PaginationMeta {
  const totalPages = Math.ceil(totalCount / perPage);
  return {
    current_page: page,
    per_page: perPage,
    total_count: totalCount,
    total_count_exact: exact,
    total_pages: totalPages,
    next_page: page < totalPages ? page + 1 : null,
    prev_page: page > 1 ? Math.min(page - 1, Math.max(totalPages, 1)) : null,
  };
}
