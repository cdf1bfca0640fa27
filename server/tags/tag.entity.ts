import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';
import { Family } from '../families/family.entity.ts';

/** A free label a family puts on transactions. */
export class Tag extends Record {
  family!: Family;
  name!: string;
  color: Opt<string> = '#e99537';
}

export const TagSchema = new EntitySchema<Tag>({
  class: Tag,
  tableName: 'tags',
  properties: {
    ...recordProperties,
    family: { kind: 'm:1', entity: () => Family },
    name: { type: 'string' },
    color: { type: 'string' },
  },
});
