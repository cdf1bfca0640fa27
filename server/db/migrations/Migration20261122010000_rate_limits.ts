import { Migration } from '@mikro-orm/migrations';

/**
 * Request counters of the rate limiter, shared by every API process. Unlogged: the counters are
 * worth nothing after a crash, and skipping the WAL keeps a counter bump off the disk.
 * The columns are the ones rate-limiter-flexible's PostgreSQL store reads and writes.
 */
export class Migration20261122010000_rate_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create unlogged table rate_limits (
        key varchar(255) primary key,
        points integer not null default 0,
        expire bigint
      )`);
  }
}
