import { randomUUID } from 'node:crypto';
import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Tag } from './tag.entity.ts';

/** A tag put on a record (today: on a transaction detail). */
export class Tagging {
  id: Opt<string> = randomUUID();
  tag!: Tag;
  taggableType: Opt<string> = 'Transaction';
  taggableId!: string;
  createdAt: Opt<Date> = new Date();
}

export const TaggingSchema = new EntitySchema<Tagging>({
  class: Tagging,
  tableName: 'taggings',
  properties: {
    id: { type: 'uuid', primary: true },
    tag: { kind: 'm:1', entity: () => Tag },
    taggableType: { type: 'string' },
    taggableId: { type: 'uuid' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
