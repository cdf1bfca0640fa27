import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../db/sql.ts';
import { counterUpsert } from '../http/access-gate.ts';
import { RateLimited } from '../core/errors.ts';

/** How many chat messages (and retries) a user may send per hour; 0 = no limit. */
export interface MessageLimit {
  perHour: number;
}

const WINDOW_MS = 3_600_000;

/**
 * Counts one message of the user on the shared `rate_limits` table, in the caller's transaction:
 * a refused or failed write takes its count back with it, and concurrent messages of one user
 * queue on the counter row, so the limit holds exactly. 429 beyond the limit.
 */
export async function countMessage(tx: EntityManager, userId: string, limit: MessageLimit): Promise<void> {
  if (limit.perHour <= 0) return;
  const at = Date.now();
  const [counter] = await sql<{ points: number; expire: string }>(tx, counterUpsert('values (?, 1, ?::bigint)'), [
    `chat_messages:user:${userId}`,
    at + WINDOW_MS,
    WINDOW_MS,
    WINDOW_MS,
  ]);
  if (counter!.points > limit.perHour) {
    const reset = Math.max(1, Math.ceil((Number(counter!.expire) - at) / 1000));
    throw new RateLimited(
      limit.perHour,
      counter!.points,
      reset,
      `Message limit reached (${limit.perHour} messages per hour)`,
    );
  }
}
