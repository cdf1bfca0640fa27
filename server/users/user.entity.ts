import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';
import { Family } from '../families/family.entity.ts';

/** A person who signs in; belongs to one family. */
export class User extends Record {
  family!: Family;
  email!: string;
  /** None for a user created through single sign-on. */
  passwordHash: string | null = null;
  firstName: string | null = null;
  lastName: string | null = null;
  /** Whether the AI assistant may be used by this user. */
  aiEnabled: Opt<boolean> = false;
  /** Whether sign-in needs a second factor (TOTP). */
  otpRequired: Opt<boolean> = false;
  /** The TOTP secret, sealed (auth/secret-box.ts); never returned after setup. */
  otpSecret: string | null = null;
  /** The last TOTP time step a code was accepted for: a code works once. */
  otpLastStep: string | null = null;
  /** Deactivated users keep their data but every credential of theirs is refused. */
  active: Opt<boolean> = true;
}

export const UserSchema = new EntitySchema<User>({
  class: User,
  tableName: 'users',
  properties: {
    ...recordProperties,
    family: { kind: 'm:1', entity: () => Family },
    email: { type: 'string' },
    passwordHash: { type: 'string', nullable: true },
    firstName: { type: 'string', nullable: true },
    lastName: { type: 'string', nullable: true },
    aiEnabled: { type: 'boolean' },
    otpRequired: { type: 'boolean' },
    otpSecret: { type: 'string', nullable: true },
    otpLastStep: { type: 'bigint', nullable: true },
    active: { type: 'boolean' },
  },
});
