import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../users/user.entity.ts';
import { ApiKey, type Scope } from './api-key.entity.ts';
import { digestApiKey, generateApiKey } from './api-key.secret.ts';

export interface NewApiKey {
  user: User;
  scope: Scope;
  name?: string;
  expiresAt?: Date | null;
}

/** Issues a key and returns it in clear: the only moment it exists outside the caller's hands. */
export async function issueApiKey(em: EntityManager, input: NewApiKey): Promise<{ key: string; apiKey: ApiKey }> {
  const key = generateApiKey();
  const apiKey = em.create(ApiKey, {
    user: input.user,
    name: input.name ?? `${input.scope} key`,
    keyDigest: digestApiKey(key),
    scope: input.scope,
    expiresAt: input.expiresAt ?? null,
  });
  await em.flush();
  return { key, apiKey };
}

/** Revokes a key; it is refused from the next request on. */
export async function revokeApiKey(em: EntityManager, apiKey: ApiKey): Promise<void> {
  apiKey.revokedAt = new Date();
  await em.flush();
}
