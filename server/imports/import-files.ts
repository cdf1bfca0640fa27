import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { CSV_CONTENT_LIMIT } from '../config.ts';
import { sql, type SqlTarget } from '../core/sql.ts';
import { withSessionOptions } from '../db/session-options.ts';
import type { StoredText } from '../core/stored-text.ts';
import { lowerBackendPriority } from '../jobs/job-priority.ts';

/**
 * An import's CSV lives in `import_files`, which the import points at (`imports.file_id`): a large
 * upload's CSV is stored from the API's body thread before the request's transaction creates the
 * import, so it never reaches the event loop's heap (docs/imports.md#limits).
 */

/** A CSV stored ahead of its import: its row in `import_files` and its size in bytes. */
export type StoredFile = StoredText;

/** Where the body thread stores uploads, and how far its connection yields (WORKER_NICENESS). */
export interface UploadStore {
  databaseUrl: string;
  niceness: number;
}

/** Stores `content` (UTF-8 bytes, bound as a binary parameter: no string to encode) as a new file. */
export async function insertImportFile(target: SqlTarget, content: Uint8Array): Promise<string> {
  const id = randomUUID();
  await sql(target, 'insert into import_files (id, content) values (?, ?)', [id, content]);
  return id;
}

/**
 * Stores a large upload's CSV from the body thread, on a connection of its own that yields the CPU
 * like a job's: a burst of uploads then waits for other families' reads instead of the reverse.
 * A CSV above the limit is not stored (undefined): the request's handler refuses it. The
 * connection is opened per upload (a few milliseconds against a 10 MiB insert), so the thread
 * holds none between uploads and none survives a database restart.
 */
export async function storeUpload(content: Uint8Array, store: UploadStore): Promise<StoredFile | undefined> {
  if (content.byteLength > CSV_CONTENT_LIMIT) return undefined;
  const client = new pg.Client({ connectionString: withSessionOptions(store.databaseUrl) });
  // A connection lost mid-insert errors the query; this keeps the client's own event from throwing.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await lowerBackendPriority(client, store.niceness).catch(() => false);
    return { id: await insertImportFile(client, content), bytes: content.byteLength };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Removes a stored file no import took (its request was refused or replayed after the upload was stored). */
export async function discardImportFile(target: SqlTarget, id: string): Promise<void> {
  await sql(
    target,
    'delete from import_files f where id = ? and not exists (select from imports where file_id = f.id)',
    [id],
  );
}

/** How long a stored file may wait for its import: far longer than any request that stores one. */
export const UNTAKEN_FILE_SECONDS = 3600;

/**
 * Removes files that no import took within UNTAKEN_FILE_SECONDS (the database's clock): an upload
 * whose request could not discard it (the process died, the database went away). Returns how many
 * went.
 */
export async function sweepImportFiles(target: SqlTarget): Promise<number> {
  const swept = await sql(
    target,
    `delete from import_files f where created_at < now() - make_interval(secs => ?)
       and not exists (select from imports where file_id = f.id) returning id`,
    [UNTAKEN_FILE_SECONDS],
  );
  return swept.length;
}
