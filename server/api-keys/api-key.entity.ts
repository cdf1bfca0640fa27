import { EntitySchema } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';
import { User } from '../users/user.entity.ts';

/** The two scopes a credential can carry. */
export type Scope = 'read' | 'read_write';

/** An API key: only the SHA-256 digest of the key is stored. */
export class ApiKey extends Record {
  user!: User;
  name!: string;
  keyDigest!: string;
  scope!: Scope;
  expiresAt: Date | null = null;
  revokedAt: Date | null = null;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  class: ApiKey,
  tableName: 'api_keys',
  properties: {
    ...recordProperties,
    user: { kind: 'm:1', entity: () => User },
    name: { type: 'string' },
    keyDigest: { type: 'string' },
    scope: { type: 'string' },
    expiresAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    revokedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
