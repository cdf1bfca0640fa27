import type { Check } from './check.ts';
import { crossFieldCheck } from './cross-field-check.ts';
import { entryCheck } from './entry-check.ts';
import { expressionCheck } from './expression-check.ts';
import { findCheck } from './find-check.ts';
import { identifierCollisionCheck } from './identifier-collision-check.ts';
import { referenceCheck } from './reference-check.ts';
import { tagCheck } from './tag-check.ts';
import { topLevelCheck } from './top-level-check.ts';

/**
 * Every blueprint check; a new one is added here. Within each of the three passes (`Check`), the
 * order of this list is the order of findings that start at the same offset: in an entry its
 * tags, then its schema, then its fields together, then its `!Find` queries, then its Python.
 */
export const checks: readonly Check[] = [
  topLevelCheck,
  tagCheck,
  entryCheck,
  crossFieldCheck,
  findCheck,
  expressionCheck,
  referenceCheck,
  identifierCollisionCheck,
];
