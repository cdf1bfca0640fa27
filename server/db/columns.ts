import { randomUUID } from 'node:crypto';
import type { EntitySchemaProperty, Opt } from '@mikro-orm/core';

/** Columns every table has: a UUID key and the two timestamps. */
export abstract class Record {
  id: Opt<string> = randomUUID();
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

/** Property definitions of {@link Record}, spread into each entity schema. */
export const recordProperties = {
  id: { type: 'uuid', primary: true },
  createdAt: { type: 'Date', columnType: 'timestamptz' },
  updatedAt: { type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() },
} satisfies { [key: string]: Partial<EntitySchemaProperty<unknown, unknown>> };

/** Money: numeric(19,4), kept as a decimal string end to end. */
export const money = { type: 'decimal', columnType: 'numeric(19,4)' } as const;
