import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from '../../server/db/connection-loss.ts';
import { bodyThreadFor } from '../../server/http/body-thread.ts';
import { loadOpenApiDocument } from '../../server/http/openapi-document.ts';
import type { UploadStore } from '../../server/imports/import-files.ts';

const parts = {
  path: '/api/v1/imports',
  params: {},
  headers: { 'content-type': 'application/json' },
  querystring: '',
  cookies: {},
};

function body(csv: string): Buffer {
  return Buffer.from(JSON.stringify({ raw_file_content: csv }));
}

/** The imports' own store, pointed at a database that refuses connections (nothing listens on port 1). */
const refusing = {
  field: 'raw_file_content',
  store: {
    module: new URL('../../server/imports/import-files.ts', import.meta.url).href,
    options: { databaseUrl: 'postgres://nobody:secret@127.0.0.1:1/finance', niceness: 0 } satisfies UploadStore,
  },
};

describe('the body thread with a store for the bulk text', () => {
  it('fails as a lost database does when the store cannot reach it, so the request answers 503', async () => {
    const thread = await bodyThreadFor(loadOpenApiDocument());
    const failure = await thread.check('createImport', parts, body('date,amount\n2024-01-01,1\n'), refusing).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(isConnectionLoss(failure)).toBe(true);
  });

  it('neither stores nor fails a body the contract refuses: the refusal comes back as it is', async () => {
    const thread = await bodyThreadFor(loadOpenApiDocument());
    const checked = await thread.check('createImport', parts, Buffer.from('{"raw_file_content": 1}'), refusing);
    expect(checked.outcome).toBe('invalid');
  });
});
