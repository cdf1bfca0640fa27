import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotent writes (docs/api-decisions.md#idempotent-writes): one row per user and
 * `Idempotency-Key`, claimed before the operation runs (`claim` names the request that holds it,
 * `status` null while it runs) and holding its answer afterwards, until `expires_at`. The primary
 * key is what lets exactly one of concurrent requests with one key claim it. A user's keys go
 * with the user.
 */
export class Migration20261201020000_idempotency_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table idempotency_keys (
        user_id uuid not null references users (id) on delete cascade,
        key text not null check (length(key) between 1 and 255),
        claim uuid not null,
        fingerprint text not null,
        claimed_at timestamptz not null,
        expires_at timestamptz not null,
        status smallint check (status between 100 and 599),
        body jsonb,
        primary key (user_id, key)
      )`);
    this.addSql(`create index idempotency_keys_expiry_idx on idempotency_keys (expires_at)`);
  }
}
