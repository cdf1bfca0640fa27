import './pg-types.ts';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities.ts';
import { Migration20261122000000_initial } from './migrations/Migration20261122000000_initial.ts';
import { Migration20261122010000_rate_limits } from './migrations/Migration20261122010000_rate_limits.ts';
import { Migration20261122020000_entry_counts } from './migrations/Migration20261122020000_entry_counts.ts';
import { Migration20261122030000_account_sync } from './migrations/Migration20261122030000_account_sync.ts';
import { Migration20261122040000_holdings } from './migrations/Migration20261122040000_holdings.ts';
import { Migration20261125010000_write_integrity } from './migrations/Migration20261125010000_write_integrity.ts';
import { Migration20261125020000_account_sync_error } from './migrations/Migration20261125020000_account_sync_error.ts';
import { Migration20261126000000_sign_in } from './migrations/Migration20261126000000_sign_in.ts';
import { Migration20261126010000_imports } from './migrations/Migration20261126010000_imports.ts';
import { Migration20261127000000_chats } from './migrations/Migration20261127000000_chats.ts';
import { Migration20261128000000_transaction_search } from './migrations/Migration20261128000000_transaction_search.ts';
import { Migration20261128010000_credential_notifications } from './migrations/Migration20261128010000_credential_notifications.ts';
import { Migration20261129000000_money } from './migrations/Migration20261129000000_money.ts';
import { Migration20261129010000_exchange_rate_imports } from './migrations/Migration20261129010000_exchange_rate_imports.ts';
import { Migration20261129020000_transfers } from './migrations/Migration20261129020000_transfers.ts';
import { Migration20261129030000_family_rates } from './migrations/Migration20261129030000_family_rates.ts';
import { Migration20261130010000_import_turns } from './migrations/Migration20261130010000_import_turns.ts';
import { Migration20261130040000_balance_bound } from './migrations/Migration20261130040000_balance_bound.ts';
import { Migration20261201010000_transaction_external_ids } from './migrations/Migration20261201010000_transaction_external_ids.ts';
import { Migration20261201020000_idempotency_keys } from './migrations/Migration20261201020000_idempotency_keys.ts';
import { Migration20261202010000_import_text_uncompressed } from './migrations/Migration20261202010000_import_text_uncompressed.ts';
import { Migration20261203010000_transfer_suggest_marks } from './migrations/Migration20261203010000_transfer_suggest_marks.ts';
import { Migration20261204010000_account_write_lock } from './migrations/Migration20261204010000_account_write_lock.ts';
import { Migration20261204020000_search_text_given } from './migrations/Migration20261204020000_search_text_given.ts';
import { Migration20261205000000_stale_mark_lock } from './migrations/Migration20261205000000_stale_mark_lock.ts';
import { Migration20261205010000_import_files } from './migrations/Migration20261205010000_import_files.ts';
import { Migration20261206000000_idempotent_answer_text } from './migrations/Migration20261206000000_idempotent_answer_text.ts';
import { installJobQueue } from '../core/job-queue.ts';
import { requestSessionOptions } from './session-options.ts';

export type { MikroORM, EntityManager } from '@mikro-orm/postgresql';

/** Migrations in order; listed here so no file globbing is needed at run time. */
const migrations = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010000_rate_limits', class: Migration20261122010000_rate_limits },
  { name: 'Migration20261122020000_entry_counts', class: Migration20261122020000_entry_counts },
  { name: 'Migration20261122030000_account_sync', class: Migration20261122030000_account_sync },
  { name: 'Migration20261122040000_holdings', class: Migration20261122040000_holdings },
  { name: 'Migration20261125010000_write_integrity', class: Migration20261125010000_write_integrity },
  { name: 'Migration20261125020000_account_sync_error', class: Migration20261125020000_account_sync_error },
  { name: 'Migration20261126000000_sign_in', class: Migration20261126000000_sign_in },
  { name: 'Migration20261126010000_imports', class: Migration20261126010000_imports },
  { name: 'Migration20261127000000_chats', class: Migration20261127000000_chats },
  { name: 'Migration20261128000000_transaction_search', class: Migration20261128000000_transaction_search },
  {
    name: 'Migration20261128010000_credential_notifications',
    class: Migration20261128010000_credential_notifications,
  },
  { name: 'Migration20261129000000_money', class: Migration20261129000000_money },
  { name: 'Migration20261129010000_exchange_rate_imports', class: Migration20261129010000_exchange_rate_imports },
  { name: 'Migration20261129020000_transfers', class: Migration20261129020000_transfers },
  { name: 'Migration20261129030000_family_rates', class: Migration20261129030000_family_rates },
  { name: 'Migration20261130010000_import_turns', class: Migration20261130010000_import_turns },
  { name: 'Migration20261130040000_balance_bound', class: Migration20261130040000_balance_bound },
  {
    name: 'Migration20261201010000_transaction_external_ids',
    class: Migration20261201010000_transaction_external_ids,
  },
  { name: 'Migration20261201020000_idempotency_keys', class: Migration20261201020000_idempotency_keys },
  {
    name: 'Migration20261202010000_import_text_uncompressed',
    class: Migration20261202010000_import_text_uncompressed,
  },
  { name: 'Migration20261203010000_transfer_suggest_marks', class: Migration20261203010000_transfer_suggest_marks },
  { name: 'Migration20261204010000_account_write_lock', class: Migration20261204010000_account_write_lock },
  { name: 'Migration20261204020000_search_text_given', class: Migration20261204020000_search_text_given },
  { name: 'Migration20261205000000_stale_mark_lock', class: Migration20261205000000_stale_mark_lock },
  { name: 'Migration20261205010000_import_files', class: Migration20261205010000_import_files },
  {
    name: 'Migration20261206000000_idempotent_answer_text',
    class: Migration20261206000000_idempotent_answer_text,
  },
];

/**
 * ORM options for a database URL. A request waits at most `acquireTimeoutMs` for a free
 * connection; then it fails with knex's KnexTimeoutError, which the API answers 503 (http/error-answer.ts).
 * Its statements wait at most `lockTimeoutMs` for a lock (requestSessionOptions; 0: no limit).
 */
export function ormOptions(clientUrl: string, poolSize: number, acquireTimeoutMs = 10_000, lockTimeoutMs = 0): Options {
  return {
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, silent: true },
    pool: { min: 0, max: poolSize, acquireTimeoutMillis: acquireTimeoutMs },
    driverOptions: { connection: { options: requestSessionOptions(lockTimeoutMs) } },
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: true },
    debug: false,
  };
}

/**
 * Brings the schema up to date, the job queue's included, and connects the ORM. With a lock timeout
 * the migrations run on a connection of their own without it: a migration waits for the tables it
 * changes however long another process holds them, rather than failing the start.
 */
export async function openOrm(
  clientUrl: string,
  poolSize: number,
  acquireTimeoutMs?: number,
  lockTimeoutMs = 0,
): Promise<MikroORM> {
  const migrating = await MikroORM.init(ormOptions(clientUrl, lockTimeoutMs ? 1 : poolSize, acquireTimeoutMs));
  await migrating.getMigrator().up();
  await installJobQueue(clientUrl);
  if (!lockTimeoutMs) return migrating;
  await migrating.close();
  return MikroORM.init(ormOptions(clientUrl, poolSize, acquireTimeoutMs, lockTimeoutMs));
}
