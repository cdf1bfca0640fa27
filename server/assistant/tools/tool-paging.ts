import type { PageRequest } from '../../core/pagination.ts';
import { PAGE_DEFAULTS } from './tool-parameters.ts';

/** The page a tool was asked for (its `page` and `page_size`, already checked by the schema). */
export function pageOf(args: { page?: number; page_size?: number }): PageRequest {
  return { page: args.page ?? PAGE_DEFAULTS.page, perPage: args.page_size ?? PAGE_DEFAULTS.pageSize };
}

/** Where a page stands, for the model to decide whether to ask for the next one. */
export function pageSummary(page: PageRequest, total: number) {
  return {
    page: page.page,
    page_size: page.perPage,
    total_count: total,
    total_pages: Math.ceil(total / page.perPage),
  };
}
