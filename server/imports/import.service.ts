import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CSV_CONTENT_LIMIT, type ImportSettings } from '../config.ts';
import { sql, sqlOn, type SqlTarget } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { NotFound, ValidationFailed } from '../core/errors.ts';
import {
  changedConfiguration,
  configurationOf,
  type ImportConfiguration,
  type ImportType,
} from './import-configuration.ts';
import {
  changeProblem,
  deleteProblem,
  publishProblem,
  revertProblem,
  startImporting,
  startReverting,
  startStaging,
} from './import-lifecycle.ts';
import { insertImportFile, type StoredFile } from './import-files.ts';
import { lockFamilyImports, passTurn } from './import-turns.ts';
import { findImport, type ImportRecord } from './import.queries.ts';

type ConfigurationInput = Partial<{ [K in keyof ImportConfiguration]: ImportConfiguration[K] }>;

/**
 * A new import as requested, without its CSV: that comes apart (api-router's `offThread`), as
 * UTF-8 bytes, or for a large body already stored by the body thread (import-files.ts).
 */
export interface NewImport extends ConfigurationInput {
  type?: ImportType | undefined;
  account_id?: string | undefined;
  publish?: string | undefined;
}

/** 422 `content_too_large`: the contract's byte limit, which `maxLength` (characters) cannot state. */
function checkContentSize(bytes: number): void {
  if (bytes > CSV_CONTENT_LIMIT) {
    throw new ValidationFailed(
      [{ message: `must be at most ${CSV_CONTENT_LIMIT} bytes (it has ${bytes})`, path: '/raw_file_content' }],
      'File content exceeds the maximum size of 10 MB',
      'content_too_large',
    );
  }
}

/** The family's account (key-share locked for the caller's transaction), or a 404 at `account_id`. */
async function accountOf(tx: EntityManager, familyId: string, accountId: string): Promise<void> {
  const [account] = await sql(tx, 'select id from accounts where id = ? and family_id = ? for key share', [
    accountId,
    familyId,
  ]);
  if (!account) throw NotFound.entity('Account');
}

/**
 * Creates an import and queues the reading of its CSV (`staging`) in the family's turn, in one
 * transaction; `publish: "true"` has it published once read, when its rows allow. A file stored
 * ahead (`StoredFile`) that ends up in no import is removed by the router once the request has
 * answered (app.ts, `offThread.discard`).
 */
export async function createImport(
  em: EntityManager,
  settings: ImportSettings,
  familyId: string,
  input: NewImport,
  content: Uint8Array | StoredFile,
): Promise<string> {
  const stored = 'id' in content ? content : undefined;
  const type = input.type ?? 'TransactionImport';
  const configuration = configurationOf(input);
  const id = randomUUID();
  checkContentSize(stored ? stored.bytes : (content as Uint8Array).byteLength);
  await writeUnit(em, async (tx) => {
    if (input.account_id) await accountOf(tx, familyId, input.account_id);
    const fileId = stored?.id ?? (await insertImportFile(tx, content as Uint8Array));
    await sql(
      tx,
      `insert into imports (id, family_id, type, account_id, configuration, file_id, status, publish_when_read)
       values (?, ?, ?, ?, ?, ?, 'staging', ?)`,
      [id, familyId, type, input.account_id ?? null, JSON.stringify(configuration), fileId, input.publish === 'true'],
    );
    await lockFamilyImports(tx, familyId);
    await startStaging(tx, familyId, id, settings);
  });
  return id;
}

export interface ImportChange extends ConfigurationInput {
  account_id?: string | null | undefined;
}

/**
 * The import, for a request that changes it: under the family's import lock (no job starts or
 * passes the turn meanwhile) it is read and checked by `problem` first, and only then locked. A
 * job working on it may hold its row for minutes; `problem` refuses every state in which one does,
 * so a request never waits for a job. Checked again once locked (the expiry may have come first).
 */
async function importToChange(
  tx: EntityManager,
  familyId: string,
  id: string,
  problem: (record: ImportRecord) => string | undefined,
): Promise<ImportRecord> {
  await lockFamilyImports(tx, familyId);
  const checked = (record: ImportRecord) => {
    const refused = problem(record);
    if (refused) throw new ValidationFailed([{ message: refused }]);
    return record;
  };
  checked(await findImport(tx, familyId, id));
  return checked(await findImport(tx, familyId, id, true));
}

/**
 * Changes a pending import's configuration or account and queues the reading of its CSV again;
 * an import still waiting to be read only takes the change (it is read with it when its turn comes).
 */
export async function updateImport(
  em: EntityManager,
  settings: ImportSettings,
  familyId: string,
  id: string,
  change: ImportChange,
): Promise<void> {
  await writeUnit(em, async (tx) => {
    // Lock order: the account, then the family's imports, then the import.
    if (change.account_id) await accountOf(tx, familyId, change.account_id);
    const current = await importToChange(tx, familyId, id, changeProblem);
    const accountId = change.account_id === undefined ? current.account_id : change.account_id;
    const configuration = changedConfiguration(current.configuration, change);
    await sql(tx, 'update imports set configuration = ?, account_id = ?, updated_at = now() where id = ?', [
      JSON.stringify(configuration),
      accountId,
      id,
    ]);
    if (current.status === 'pending') await startStaging(tx, familyId, id, settings);
  });
}

/** Marks a pending, valid import `importing` and queues its job in the family's turn; 422 saying why not. */
export function publishImport(
  em: EntityManager,
  settings: ImportSettings,
  familyId: string,
  id: string,
): Promise<void> {
  return writeUnit(em, async (tx) => {
    await importToChange(tx, familyId, id, publishProblem);
    await startImporting(tx, familyId, id, settings);
  });
}

/** Marks a complete (or revert_failed) import `reverting` and queues the job that undoes it, in the family's turn. */
export function revertImport(em: EntityManager, settings: ImportSettings, familyId: string, id: string): Promise<void> {
  return writeUnit(em, async (tx) => {
    await importToChange(tx, familyId, id, revertProblem);
    await startReverting(tx, familyId, id, settings);
  });
}

/**
 * Deletes an import that has written nothing and is not being read, with its rows (by the foreign
 * key's cascade); when it held the family's turn, the next import waiting gets it.
 */
export async function deleteImport(
  em: EntityManager,
  settings: ImportSettings,
  familyId: string,
  id: string,
): Promise<void> {
  await writeUnit(em, async (tx) => {
    await importToChange(tx, familyId, id, deleteProblem);
    await sql(tx, 'delete from imports where id = ?', [id]);
    await passTurn(tx, familyId, settings);
  });
}

/**
 * Before an account is deleted: its imports that wrote nothing go with it (as `deleteImport` would
 * delete them, with their staged rows), while one that is being read, written or reverted, or
 * waits to be written, stands in the way (422): its job would write into the account or revert
 * from it. The caller holds the account's lock; the family's import lock comes next (the lock
 * order of import requests). None of the deleted imports holds the family's turn, so no turn is
 * passed. Imports that wrote into the account stay, without it.
 */
export async function deleteImportsOfAccount(target: SqlTarget, familyId: string, accountId: string): Promise<void> {
  const run = sqlOn(target);
  await lockFamilyImports(target, familyId);
  const [busy] = await run<{ status: string }>(
    `select status from imports where account_id = ?::uuid
        and (holds_turn or status in ('importing', 'reverting')) limit 1`,
    [accountId],
  );
  if (busy) {
    throw new ValidationFailed([
      { message: `The account has an import in progress (${busy.status}); delete the account once it has ended` },
    ]);
  }
  await run(
    `delete from imports where account_id = ?::uuid and status in ('staging', 'pending', 'failed', 'expired')`,
    [accountId],
  );
}
