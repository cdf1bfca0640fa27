import { Migration } from '@mikro-orm/migrations';

/**
 * An answer kept for an Idempotency-Key is replayed as the text first sent (docs/api-decisions.md
 * #idempotent-writes): `json` keeps the text as given, where `jsonb` reordered its members and
 * respaced it. Rows kept before keep the text jsonb gives them.
 */
export class Migration20261206000000_idempotent_answer_text extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table idempotency_keys alter column body type json using body::json`);
  }
}
