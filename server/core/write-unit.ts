import type { EntityManager } from '@mikro-orm/postgresql';

/** SQLSTATEs after which running the same unit of work again can succeed. */
const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

/** How often a unit of work runs at most: a deadlock should be rare once locks are taken in order. */
const ATTEMPTS = 3;

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/**
 * Runs a write (one statement, or a transaction) again, up to 3 times in all, when PostgreSQL aborts
 * it for a deadlock or a serialization failure: the last line of defence behind the lock order
 * below. The write must be atomic, so that an aborted attempt left nothing behind.
 */
export async function retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
    }
  }
}

/**
 * Runs a write in one transaction, retried on conflicts (retryingConflicts). Each attempt starts
 * from a fresh EntityManager, so `work` must load what it changes itself.
 */
export function writeUnit<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return retryingConflicts(() => em.fork().transactional(work));
}
