import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { ValidationFailed } from './errors.ts';

/**
 * Flushes; a unique-index clash becomes a 422 at `path` (the database decides, so races are safe:
 * of two requests creating the same name, one wins and the other is told why).
 */
export async function flushUnique(em: EntityManager, path: string, message: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw ValidationFailed.at(path, message);
    throw error;
  }
}

/** `flushUnique` for the names that are unique per family (any case). */
export function flushUniqueName(em: EntityManager, path: string): Promise<void> {
  return flushUnique(em, path, 'name has already been taken');
}

/** Whether `error` is PostgreSQL refusing a row that a unique index already holds (from a statement of ours). */
export function uniqueViolation(error: unknown): { constraint?: string } | undefined {
  const failure = error as { code?: unknown; constraint?: string } | null;
  return failure?.code === '23505' ? failure : undefined;
}
