import { describe, expect, it } from 'vitest';
import { pageRequest, paginationMeta } from '../../server/core/pagination.ts';

describe('paginationMeta', () => {
  it.each([
    [{ page: 1, perPage: 25 }, 0, { total_pages: 0, next_page: null, prev_page: null }],
    [{ page: 1, perPage: 25 }, 26, { total_pages: 2, next_page: 2, prev_page: null }],
    [{ page: 2, perPage: 25 }, 26, { total_pages: 2, next_page: null, prev_page: 1 }],
    [{ page: 2, perPage: 10 }, 30, { total_pages: 3, next_page: 3, prev_page: 1 }],
    // Past the end: no next page, and "previous" points at the last page that has rows.
    [{ page: 9, perPage: 10 }, 30, { total_pages: 3, next_page: null, prev_page: 3 }],
  ])('%o of %i rows', (page, total, expected) => {
    expect(paginationMeta(page, total)).toEqual({
      current_page: page.page,
      per_page: page.perPage,
      total_count: total,
      total_count_exact: true,
      ...expected,
    });
  });

  it('passes on a bounded total as not exact, with pages up to the bound', () => {
    expect(paginationMeta({ page: 3, perPage: 10 }, 120, false)).toMatchObject({
      total_count: 120,
      total_count_exact: false,
      total_pages: 12,
      next_page: 4,
    });
  });

  it('defaults to page 1 of 25', () => {
    expect(pageRequest({})).toEqual({ page: 1, perPage: 25 });
  });
});
