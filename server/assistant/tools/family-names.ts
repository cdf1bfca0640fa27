import { runStatement, type Queryable, type Statement } from '../../core/sql.ts';

/** The records a model may name instead of giving ids (it knows names from the user and from get_accounts). */
export type NamedRecords = 'accounts' | 'categories' | 'merchants' | 'tags';

const KINDS: readonly NamedRecords[] = ['accounts', 'categories', 'merchants', 'tags'];

export type NamesByKind = Partial<Record<NamedRecords, readonly string[] | undefined>>;

/** The ids the given names stand for, and the names that match nothing, per kind. */
export interface ResolvedNames {
  ids: Partial<Record<NamedRecords, string[]>>;
  unmatched: Partial<Record<NamedRecords, string[]>>;
}

/**
 * One statement for every kind (the table names are these constants, never input), always the
 * same text. Each table is read within the family only: another family's names match nothing.
 */
function lookupStatement(familyId: string, names: NamesByKind): Statement {
  const parts = KINDS.map(
    (kind) => `select '${kind}' as kind, n.name as asked, x.id from unnest(?::text[]) n(name)
      join ${kind} x on x.family_id = ? and lower(x.name) = lower(btrim(n.name))`,
  );
  return {
    text: parts.join(' union all '),
    params: KINDS.flatMap((kind) => [names[kind] ?? [], familyId]),
  };
}

/** Resolves names case-insensitively within the family; a name may match several records (all are kept). */
export async function resolveNames(db: Queryable, familyId: string, names: NamesByKind): Promise<ResolvedNames> {
  const asked = KINDS.filter((kind) => names[kind]?.length);
  const result: ResolvedNames = { ids: {}, unmatched: {} };
  if (!asked.length) return result;
  const rows = await runStatement<{ kind: NamedRecords; asked: string; id: string }>(
    db,
    lookupStatement(familyId, names),
  );
  for (const kind of asked) {
    const found = rows.filter((row) => row.kind === kind);
    result.ids[kind] = [...new Set(found.map((row) => row.id))];
    const matched = new Set(found.map((row) => row.asked));
    const missing = [...new Set(names[kind]!.filter((name) => !matched.has(name)))];
    if (missing.length) result.unmatched[kind] = missing;
  }
  return result;
}

/** Whether a kind was asked for by name but none of its names matched: its filter can match nothing. */
export function matchesNothing(names: NamesByKind, resolved: ResolvedNames): boolean {
  return KINDS.some((kind) => names[kind]?.length && !resolved.ids[kind]?.length);
}

/** What a result says about names that matched nothing, so the model can correct them; empty when all matched. */
export function unmatchedReport(resolved: ResolvedNames): Record<string, unknown> {
  if (!Object.keys(resolved.unmatched).length) return {};
  return {
    unmatched_names: resolved.unmatched,
    unmatched_hint:
      'These names match nothing in this household and were left out of the filter. ' +
      'get_accounts lists the account names; check the spelling of the others or leave them out.',
  };
}
