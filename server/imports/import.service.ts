import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CSV_CONTENT_LIMIT } from '../config.ts';
import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { NotFound, ValidationFailed } from '../core/errors.ts';
import {
  changedConfiguration,
  configurationOf,
  type ImportConfiguration,
  type ImportType,
} from './import-configuration.ts';
import { publishProblem, startImporting, startReverting } from './import-lifecycle.ts';
import { stageRows } from './import-staging.ts';
import { findImport } from './import.queries.ts';

type ConfigurationInput = Partial<{ [K in keyof ImportConfiguration]: ImportConfiguration[K] }>;

export interface NewImport extends ConfigurationInput {
  raw_file_content: string;
  type?: ImportType | undefined;
  account_id?: string | undefined;
  publish?: string | undefined;
}

/** 422 `content_too_large`: the contract's byte limit, which `maxLength` (characters) cannot state. */
function checkContentSize(text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > CSV_CONTENT_LIMIT) {
    throw new ValidationFailed(
      [{ message: `must be at most ${CSV_CONTENT_LIMIT} bytes (it has ${bytes})`, path: '/raw_file_content' }],
      'File content exceeds the maximum size of 10 MB',
      'content_too_large',
    );
  }
}

/** The family's account (locked for the caller's transaction), or a 404 at `account_id`. */
async function accountOf(tx: EntityManager, familyId: string, accountId: string): Promise<void> {
  const [account] = await sql(tx, 'select id from accounts where id = ? and family_id = ? for key share', [
    accountId,
    familyId,
  ]);
  if (!account) throw new NotFound('Account not found');
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Reads the CSV with the import's configuration and stores the rows and counts. */
async function restage(
  tx: EntityManager,
  id: string,
  text: string,
  type: ImportType,
  configuration: ImportConfiguration,
  accountId: string | null,
) {
  const counts = await stageRows(tx, id, text, { type, configuration, hasAccount: accountId !== null, today: today() });
  await sql(
    tx,
    `update imports set rows_count = ?, valid_rows_count = ?, invalid_rows_count = ?, error = ?, updated_at = now()
     where id = ?`,
    [counts.rows_count, counts.valid_rows_count, counts.invalid_rows_count, counts.error, id],
  );
}

/**
 * Creates a pending import and reads its CSV at once (so `stats` and the rows are there to see),
 * all in one transaction; `publish: "true"` then queues it when it can be published.
 */
export async function createImport(em: EntityManager, familyId: string, input: NewImport): Promise<string> {
  const text = input.raw_file_content;
  checkContentSize(text);
  const type = input.type ?? 'TransactionImport';
  const configuration = configurationOf(input);
  const id = randomUUID();
  await writeUnit(em, async (tx) => {
    if (input.account_id) await accountOf(tx, familyId, input.account_id);
    await sql(
      tx,
      `insert into imports (id, family_id, type, account_id, configuration, raw_file_content) values (?, ?, ?, ?, ?, ?)`,
      [id, familyId, type, input.account_id ?? null, JSON.stringify(configuration), text],
    );
    await restage(tx, id, text, type, configuration, input.account_id ?? null);
    if (input.publish === 'true') await queuePublish(tx, familyId, id, { quiet: true });
  });
  return id;
}

export interface ImportChange extends ConfigurationInput {
  account_id?: string | null | undefined;
}

/** Changes a pending import's configuration or account and reads its CSV again, in one transaction. */
export async function updateImport(
  em: EntityManager,
  familyId: string,
  id: string,
  change: ImportChange,
): Promise<void> {
  await writeUnit(em, async (tx) => {
    const current = await findImport(tx, familyId, id, true);
    if (current.status !== 'pending') {
      throw new ValidationFailed([{ message: `Only a pending import can be changed (this one is ${current.status})` }]);
    }
    const accountId = change.account_id === undefined ? current.account_id : change.account_id;
    if (change.account_id) await accountOf(tx, familyId, change.account_id);
    const configuration = changedConfiguration(current.configuration, change);
    const [{ raw_file_content: text }] = (await sql<{ raw_file_content: string }>(
      tx,
      'update imports set configuration = ?, account_id = ? where id = ? returning raw_file_content',
      [JSON.stringify(configuration), accountId, id],
    )) as [{ raw_file_content: string }];
    await restage(tx, id, text, current.type, configuration, accountId);
  });
}

/**
 * Marks a pending, valid import `importing` and queues its job, in the caller's transaction (the
 * job exists exactly when the status says so). `quiet`: an import created with `publish: "true"`
 * that cannot be published stays pending instead of failing the creation.
 */
export async function queuePublish(tx: EntityManager, familyId: string, id: string, options = { quiet: false }) {
  const record = await findImport(tx, familyId, id, true);
  const problem = publishProblem(record);
  if (problem) {
    if (options.quiet) return;
    throw new ValidationFailed([{ message: problem }]);
  }
  await startImporting(tx, id);
}

export function publishImport(em: EntityManager, familyId: string, id: string): Promise<void> {
  return writeUnit(em, (tx) => queuePublish(tx, familyId, id));
}

/** Marks a complete (or revert_failed) import `reverting` and queues the job that undoes it. */
export function revertImport(em: EntityManager, familyId: string, id: string): Promise<void> {
  return writeUnit(em, async (tx) => {
    await startReverting(tx, await findImport(tx, familyId, id, true));
  });
}
