import type { EntityManager } from '@mikro-orm/postgresql';
import { flushUniqueName } from '../core/flush-unique.ts';
import { Family } from '../families/family.entity.ts';
import { NotFound, ValidationFailed } from '../core/errors.ts';
import { Tag } from './tag.entity.ts';

export interface TagChanges {
  name?: string;
  color?: string;
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw ValidationFailed.at('/tag/name', 'name must not be blank');
  return trimmed;
}

export async function createTag(
  em: EntityManager,
  familyId: string,
  input: TagChanges & { name: string },
): Promise<string> {
  const tag = em.create(Tag, {
    family: em.getReference(Family, familyId),
    name: cleanName(input.name),
    ...(input.color ? { color: input.color } : {}),
  });
  await flushUniqueName(em, '/tag/name');
  return tag.id;
}

export async function updateTag(em: EntityManager, familyId: string, id: string, changes: TagChanges): Promise<void> {
  const tag = await em.findOne(Tag, { id, family: familyId });
  if (!tag) throw NotFound.entity('Tag');
  if (changes.name !== undefined) tag.name = cleanName(changes.name);
  if (changes.color !== undefined) tag.color = changes.color;
  await flushUniqueName(em, '/tag/name');
}

/** Deletes a tag; its taggings go with it (foreign key cascade). */
export async function deleteTag(em: EntityManager, familyId: string, id: string): Promise<void> {
  const deleted = await em.nativeDelete(Tag, { id, family: familyId });
  if (!deleted) throw NotFound.entity('Tag');
}
