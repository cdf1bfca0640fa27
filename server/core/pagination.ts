/** The page a list request asks for, after the contract has checked the bounds. */
export interface PageRequest {
  page: number;
  perPage: number;
}

/** The `meta` member of every collection response. */
export interface PaginationMeta {
  current_page: number;
  per_page: number;
  total_count: number;
  total_count_exact: boolean;
  total_pages: number;
  next_page: number | null;
  prev_page: number | null;
}

/** Defaults from the contract: page 1, 25 per page. */
export function pageRequest(query: { page?: number; per_page?: number }): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? 25 };
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
