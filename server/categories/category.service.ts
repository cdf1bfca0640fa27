import type { EntityManager } from '@mikro-orm/postgresql';
import { flushUniqueName } from '../core/flush-unique.ts';
import { Family } from '../families/family.entity.ts';
import { ValidationFailed } from '../core/errors.ts';
import { Category } from './category.entity.ts';

export interface NewCategory {
  name: string;
  color?: string;
  icon?: string | null;
  parent_id?: string | null;
}

/** Adds a category; the name is unique in the family, ignoring case; a parent must be the family's. */
export async function createCategory(em: EntityManager, familyId: string, input: NewCategory): Promise<string> {
  const name = input.name.trim();
  if (!name) throw ValidationFailed.at('/category/name', 'name must not be blank');
  let parent: Category | null = null;
  if (input.parent_id) {
    parent = await em.findOne(Category, { id: input.parent_id, family: familyId });
    if (!parent) throw ValidationFailed.at('/category/parent_id', 'parent_id does not match a category of this family');
  }
  const category = em.create(Category, {
    family: em.getReference(Family, familyId),
    name,
    ...(input.color ? { color: input.color } : {}),
    icon: input.icon ?? null,
    parent,
  });
  await flushUniqueName(em, '/category/name');
  return category.id;
}
