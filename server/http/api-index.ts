import type { Handler } from './contract.ts';
import type { OpenApiDocument } from './openapi-document.ts';

/** Where the API's own description is served: the docs page and the bundled contract. */
export const SERVICE_PATHS = {
  index: '/api/v1',
  docs: '/docs',
  openapi: '/api/v1/openapi.json',
} as const;

/**
 * `GET /api/v1`: the answer at the API's root, so a person or a client that starts there learns
 * what the service is and where its description lives instead of getting a 404.
 */
export function apiIndexHandler(document: OpenApiDocument): Handler<'getApiIndex'> {
  const data = {
    name: document.info.title,
    version: document.info.version,
    links: { docs: SERVICE_PATHS.docs, openapi: SERVICE_PATHS.openapi },
  };
  return async () => ({ status: 200, body: { data } });
}
