import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { ValidationFailed } from '../http/errors.ts';

/** Flushes; a unique-name clash becomes a 422 on `path` (the database decides, so races are safe). */
export async function flushUniqueName(em: EntityManager, path: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw ValidationFailed.at(path, 'name has already been taken');
    }
    throw error;
  }
}
