import type { EntityManager } from '@mikro-orm/postgresql';
import { countOnePoint, refuseBeyond } from '../core/rate-limit.ts';
import { sqlOn } from '../core/sql.ts';

/** How many chat messages (and retries) a user may send per hour; 0 = no limit. */
export interface MessageLimit {
  perHour: number;
}

const WINDOW_MS = 3_600_000;

/**
 * Counts one message of the user in the caller's transaction (so a refused or failed write takes
 * its count back); 429 beyond the limit.
 */
export async function countMessage(tx: EntityManager, userId: string, limit: MessageLimit): Promise<void> {
  if (limit.perHour <= 0) return;
  const now = Date.now();
  const [counter] = await countOnePoint(sqlOn(tx), [{ key: `chat_messages:user:${userId}`, windowMs: WINDOW_MS }], now);
  refuseBeyond(counter!, limit.perHour, now, `Message limit reached (${limit.perHour} messages per hour)`);
}
