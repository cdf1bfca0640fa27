import type { Scope } from '../api-keys/api-key.entity.ts';

/** Who is calling: resolved from a credential once per request. */
export interface Principal {
  userId: string;
  familyId: string;
  scope: Scope;
  aiEnabled: boolean;
  credential: { kind: 'api_key' | 'bearer'; id: string };
}
