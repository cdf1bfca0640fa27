import {
  ACTION_TYPES,
  CONDITION_OPERATORS,
  CONDITION_TYPES,
  type ActionType,
  type RuleCondition,
} from '../../rules/transaction-rules.ts';
import { CHUNK, ImportDataError, type ImportJob, type WriteOutcome } from './import-writer.ts';

/** The longest name of a rule, category, merchant or tag (as the API takes them). */
const NAME_LIMIT = 255;

/** An action as the CSV gives it: the names of the records it sets. */
interface NamedAction {
  action_type: ActionType;
  names: string[];
}

interface ImportedRule {
  row: number;
  name: string;
  active: boolean;
  effective_date: string | null;
  conditions: RuleCondition[];
  actions: NamedAction[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isName = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() !== '' && value.trim().length <= NAME_LIMIT && !value.includes('\0');

const quoted = (value: unknown) => (typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? 'nothing'));

/** The conditions of a row, checked: at least one, each a name match with `like` or `=`. */
function readConditions(row: number, cell: unknown): RuleCondition[] {
  const list = Array.isArray(cell) ? cell : [];
  if (!list.length) throw new ImportDataError(`Row ${row}: a rule needs at least one condition`);
  return list.map((item: unknown, index) => {
    const at = `Row ${row}: condition ${index + 1}`;
    if (!isObject(item)) throw new ImportDataError(`${at} must be an object with condition_type, operator and value`);
    if (!(CONDITION_TYPES as readonly unknown[]).includes(item.condition_type)) {
      throw new ImportDataError(
        `${at}: condition_type ${quoted(item.condition_type)} is not supported (only transaction_name)`,
      );
    }
    if (!(CONDITION_OPERATORS as readonly unknown[]).includes(item.operator)) {
      throw new ImportDataError(`${at}: operator ${quoted(item.operator)} is not supported (like or =)`);
    }
    if (typeof item.value !== 'string' || item.value.trim() === '' || item.value.length > NAME_LIMIT) {
      throw new ImportDataError(`${at}: value must be a text of 1 to ${NAME_LIMIT} characters`);
    }
    return {
      condition_type: 'transaction_name',
      operator: item.operator as RuleCondition['operator'],
      value: item.value,
    };
  });
}

/** The actions of a row, checked: each sets a category, a merchant (a name) or tags (a name or a list of names). */
function readActions(row: number, cell: unknown): NamedAction[] {
  const list = Array.isArray(cell) ? cell : [];
  if (!list.length) throw new ImportDataError(`Row ${row}: a rule needs at least one action`);
  return list.map((item: unknown, index) => {
    const at = `Row ${row}: action ${index + 1}`;
    if (!isObject(item)) throw new ImportDataError(`${at} must be an object with action_type and value`);
    const type = item.action_type;
    if (!(ACTION_TYPES as readonly unknown[]).includes(type)) {
      throw new ImportDataError(`${at}: action_type ${quoted(type)} is not supported (${ACTION_TYPES.join(', ')})`);
    }
    const tags = type === 'set_transaction_tags';
    const names = tags && Array.isArray(item.value) ? (item.value as unknown[]) : [item.value];
    if (!names.length || !names.every(isName)) {
      throw new ImportDataError(
        `${at}: value must be ${tags ? 'a tag name or a list of tag names' : 'a name'} of 1 to ${NAME_LIMIT} characters`,
      );
    }
    return { action_type: type as ActionType, names: names.map((name) => name.trim()) };
  });
}

const ACTION_WORDS: Record<ActionType, string> = {
  set_transaction_category: 'category',
  set_transaction_merchant: 'merchant',
  set_transaction_tags: 'tags',
};

/** A rule without a name is named after what it does: `Name contains "grocery": category Groceries`. */
function generatedName(conditions: RuleCondition[], actions: NamedAction[]): string {
  const when = conditions
    .map((condition) => `Name ${condition.operator === 'like' ? 'contains' : 'is'} "${condition.value}"`)
    .join(' and ');
  const then = actions.map((action) => `${ACTION_WORDS[action.action_type]} ${action.names.join(', ')}`).join(', ');
  const name = `${when}: ${then}`;
  return name.length <= NAME_LIMIT ? name : `${name.slice(0, NAME_LIMIT - 3)}...`;
}

/** Reads and checks every row; rows naming one rule (any case) are upserted in order, so the last one counts. */
async function readRules(job: ImportJob): Promise<ImportedRule[]> {
  const rules = new Map<string, ImportedRule>();
  for (let from = 1; from <= job.rowsCount; from += CHUNK) {
    const rows = await job.run<{ row_number: number; values: Record<string, unknown> }>(
      `select row_number, "values" from import_rows where import_id = ?::uuid and row_number between ? and ?
       order by row_number`,
      [job.id, from, from + CHUNK - 1],
    );
    for (const { row_number: row, values } of rows) {
      const conditions = readConditions(row, values.conditions);
      const actions = readActions(row, values.actions);
      const given = typeof values.name === 'string' ? values.name.trim() : '';
      const name = given || generatedName(conditions, actions);
      rules.set(name.toLowerCase(), {
        row,
        name,
        active: values.active !== false,
        effective_date: typeof values.effective_date === 'string' ? values.effective_date : null,
        conditions,
        actions,
      });
    }
  }
  return [...rules.values()];
}

/** Where the records an action names live, and what a new one looks like. */
const RECORDS: Record<ActionType, { table: string; insert: string }> = {
  set_transaction_category: {
    table: 'categories',
    insert: `insert into categories (id, family_id, name, color, import_id)
             select gen_random_uuid(), ?::uuid, n.name, '#6172F3', ?::uuid from unnest(?::text[]) as n(name)
             on conflict (family_id, lower(name)) do nothing`,
  },
  set_transaction_merchant: {
    table: 'merchants',
    insert: `insert into merchants (id, family_id, name, import_id)
             select gen_random_uuid(), ?::uuid, n.name, ?::uuid from unnest(?::text[]) as n(name)
             on conflict (family_id, lower(name)) do nothing`,
  },
  set_transaction_tags: {
    table: 'tags',
    insert: `insert into tags (id, family_id, name, color, import_id)
             select gen_random_uuid(), ?::uuid, n.name, '#e99537', ?::uuid from unnest(?::text[]) as n(name)
             on conflict (family_id, lower(name)) do nothing`,
  },
};

/**
 * The ids of the records the actions name, by kind and lower-case name: found in the family (any
 * case) or created with the import's id (so a revert removes them with the rules).
 */
async function recordIds(job: ImportJob, rules: ImportedRule[]): Promise<Map<ActionType, Map<string, string>>> {
  const ids = new Map<ActionType, Map<string, string>>();
  for (const type of ACTION_TYPES) {
    const names = new Map<string, string>();
    for (const rule of rules) {
      for (const action of rule.actions) {
        if (action.action_type !== type) continue;
        for (const name of action.names) if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
      }
    }
    const found = new Map<string, string>();
    ids.set(type, found);
    if (!names.size) continue;
    const { table, insert } = RECORDS[type];
    await job.run(insert, [job.familyId, job.id, [...names.values()]]);
    // PostgreSQL decides what "any case" means, as the unique indexes do.
    const rows = await job.run<{ id: string; name: string }>(
      `select r.id, n.name from unnest(?::text[]) as n(name)
       join ${table} r on r.family_id = ?::uuid and lower(r.name) = lower(n.name)`,
      [[...names.values()], job.familyId],
    );
    const bySpelling = new Map(rows.map((row) => [row.name, row.id]));
    for (const [key, spelling] of names) {
      const id = bySpelling.get(spelling);
      if (id) found.set(key, id);
    }
  }
  return ids;
}

/**
 * Writes the rules of a RuleImport, upserted by name (any case); a row without a name gets one
 * made from its conditions and actions. Every row's JSON is checked first (a bad shape fails the
 * import naming the row). The categories, merchants and tags the actions name are found by name
 * (any case) or created with the import's id, and the rules store their ids. A new rule carries
 * the import's id (a revert removes it); a rule of that name that existed before is updated in
 * place and keeps its origin, so a revert of this import leaves it (changed). Returns the number
 * of rules written.
 */
export async function writeRules(job: ImportJob): Promise<WriteOutcome> {
  const rules = await readRules(job);
  const ids = await recordIds(job, rules);
  const stored = rules.map((rule) => ({
    source_row: rule.row,
    name: rule.name,
    active: rule.active,
    effective_date: rule.effective_date,
    conditions: rule.conditions,
    actions: rule.actions.map((action) => {
      const found = action.names.map((name) => {
        const id = ids.get(action.action_type)!.get(name.toLowerCase());
        if (!id) throw new Error(`rule ${rule.name}: no record found or created for '${name}'`);
        return id;
      });
      return {
        action_type: action.action_type,
        value: action.action_type === 'set_transaction_tags' ? found : found[0],
      };
    }),
  }));
  const written = await job.run<{ id: string }>(
    `insert into rules (id, family_id, name, resource_type, active, effective_date, conditions, actions, import_id)
     select gen_random_uuid(), ?::uuid, n.name, 'transaction', n.active, n.effective_date, n.conditions, n.actions, ?::uuid
     from (select distinct on (lower(r.name)) r.* from jsonb_to_recordset(?::jsonb)
             as r(source_row integer, name text, active boolean, effective_date date, conditions jsonb, actions jsonb)
           order by lower(r.name), r.source_row desc) n
     on conflict (family_id, lower(name)) do update
       set active = excluded.active, effective_date = excluded.effective_date, conditions = excluded.conditions,
           actions = excluded.actions, updated_at = now()
     returning id`,
    [job.familyId, job.id, JSON.stringify(stored)],
  );
  await job.progress(written.length);
  return { imported: written.length, accounts: [] };
}
