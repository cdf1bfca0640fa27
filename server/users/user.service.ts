import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { Family } from '../families/family.entity.ts';
import { hashPassword } from './password.ts';
import { User } from './user.entity.ts';

export interface NewUser {
  email: string;
  password: string;
  familyName: string;
  currency?: string;
  firstName?: string;
  lastName?: string;
  aiEnabled?: boolean;
}

/** Thrown when the email already belongs to a user. */
export class EmailTaken extends Error {
  constructor(email: string) {
    super(`A user with email ${email} already exists`);
  }
}

/** Creates a family and its first user in one transaction. */
export async function createUserWithFamily(em: EntityManager, input: NewUser): Promise<{ user: User; family: Family }> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await em.transactional(async (tx) => {
      const family = tx.create(Family, {
        name: input.familyName,
        ...(input.currency ? { currency: input.currency } : {}),
      });
      const user = tx.create(User, {
        family,
        email: input.email.trim().toLowerCase(),
        passwordHash,
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null,
        aiEnabled: input.aiEnabled ?? false,
      });
      return { user, family };
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new EmailTaken(input.email);
    throw error;
  }
}
