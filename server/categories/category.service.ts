import type { EntityManager } from '@mikro-orm/postgresql';
import { flushUniqueName } from '../core/flush-unique.ts';
import { Family } from '../families/family.entity.ts';
import { NotFound, ValidationFailed } from '../core/errors.ts';
import { sql } from '../core/sql.ts';
import { writeUnit } from '../core/write-unit.ts';
import { lockAccountsOfTransactions } from '../accounts/account-lock.ts';
import { Category } from './category.entity.ts';

export interface NewCategory {
  name: string;
  color?: string;
  icon?: string | null;
  parent_id?: string | null;
}

export interface CategoryChanges {
  name?: string;
  color?: string;
  icon?: string | null;
  parent_id?: string | null;
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw ValidationFailed.at('/category/name', 'name must not be blank');
  return trimmed;
}

/** The family's category `parentId` (null for none), or a 422 at `parent_id`. */
async function parentOf(em: EntityManager, familyId: string, parentId: string | null | undefined) {
  if (!parentId) return null;
  const parent = await em.findOne(Category, { id: parentId, family: familyId });
  if (!parent) throw ValidationFailed.at('/category/parent_id', 'parent_id does not match a category of this family');
  return parent;
}

/** Adds a category; the name is unique in the family, ignoring case; a parent must be the family's. */
export async function createCategory(em: EntityManager, familyId: string, input: NewCategory): Promise<string> {
  const name = cleanName(input.name);
  const parent = await parentOf(em, familyId, input.parent_id);
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

/**
 * Changes what was sent. A new parent must be the family's and neither the category itself nor one
 * nested under it (that would make a circle of parents).
 */
export async function updateCategory(
  em: EntityManager,
  familyId: string,
  id: string,
  changes: CategoryChanges,
): Promise<void> {
  const category = await em.findOne(Category, { id, family: familyId });
  if (!category) throw NotFound.entity('Category');
  if (changes.name !== undefined) category.name = cleanName(changes.name);
  if (changes.color !== undefined) category.color = changes.color;
  if (changes.icon !== undefined) category.icon = changes.icon;
  if (changes.parent_id !== undefined) {
    const parent = await parentOf(em, familyId, changes.parent_id);
    if (parent) {
      const [circle] = await sql(
        em,
        `with recursive up (id, parent_id) as (
           select id, parent_id from categories where id = ?
           union select c.id, c.parent_id from categories c join up on c.id = up.parent_id
         ) select 1 from up where id = ?`,
        [parent.id, id],
      );
      if (circle) {
        throw ValidationFailed.at(
          '/category/parent_id',
          'parent_id must not be the category itself or one nested under it',
        );
      }
    }
    category.parent = parent;
  }
  category.updatedAt = new Date();
  await flushUniqueName(em, '/category/name');
}

/**
 * Deletes a category in one transaction. Its transactions become uncategorised, or move to
 * `replacementId`; categories nested under it become top-level ones (foreign key, set null). The
 * accounts of its transactions are locked first (the lock order), then the category itself, so a
 * write giving a transaction this category either commits before and is moved, or comes after and
 * finds no category.
 */
export async function deleteCategory(
  em: EntityManager,
  familyId: string,
  id: string,
  replacementId: string | undefined,
): Promise<void> {
  await writeUnit(em, async (tx) => {
    const [category] = await sql(tx, 'select 1 from categories where id = ? and family_id = ?', [id, familyId]);
    if (!category) throw NotFound.entity('Category');
    if (replacementId !== undefined) {
      const problem =
        replacementId === id
          ? 'replacement_id must be another category than the one deleted'
          : (await sql(tx, 'select 1 from categories where id = ? and family_id = ?', [replacementId, familyId]))
                .length === 0
            ? 'replacement_id does not match a category of this family'
            : undefined;
      if (problem) throw new ValidationFailed([{ in: 'query', path: '/replacement_id', message: problem }]);
    }
    await lockAccountsOfTransactions(tx, 'category_id', id);
    const [still] = await sql(tx, 'select 1 from categories where id = ? for update', [id]);
    if (!still) throw NotFound.entity('Category');
    await sql(tx, 'update transactions set category_id = ?, updated_at = now() where category_id = ?', [
      replacementId ?? null,
      id,
    ]);
    await sql(tx, 'delete from categories where id = ?', [id]);
  });
}
