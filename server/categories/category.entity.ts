import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Record, recordProperties } from '../db/columns.ts';
import { Family } from '../families/family.entity.ts';

/** A spending or income category; may have a parent category. */
export class Category extends Record {
  family!: Family;
  name!: string;
  color: Opt<string> = '#6172F3';
  icon: string | null = null;
  parent: Category | null = null;
}

export const CategorySchema = new EntitySchema<Category>({
  class: Category,
  tableName: 'categories',
  properties: {
    ...recordProperties,
    family: { kind: 'm:1', entity: () => Family },
    name: { type: 'string' },
    color: { type: 'string' },
    icon: { type: 'string', nullable: true },
    parent: { kind: 'm:1', entity: () => Category, nullable: true },
  },
});
