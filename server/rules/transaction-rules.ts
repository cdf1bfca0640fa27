import type { Sql, Statement } from '../core/sql.ts';

/**
 * Rules (brought by a RuleImport) set a category, a merchant or tags on a transaction whose name
 * matches. Stored shape, as the rule writer normalises it:
 * - `conditions`: `[{condition_type: 'transaction_name', operator: 'like' | '=', value}]`, all of
 *   which must hold; `like` means the name contains the value, ignoring case; `=` the exact name.
 * - `actions`: `[{action_type: 'set_transaction_category' | 'set_transaction_merchant', value: <id>}]`
 *   or `{action_type: 'set_transaction_tags', value: [<id>, ...]}` (names resolved to the family's
 *   records when the rule is imported).
 *
 * A rule applies when it is active and its `effective_date` is null or on or before the
 * transaction's date. Rules only fill in what a transaction lacks: a category or merchant when it
 * has none, tags when it has none; a category or merchant set by the CSV row or the request wins.
 * Of several matching rules setting a category (or merchant), the one whose name sorts first
 * (ignoring case) decides, and within a rule its first such action; tags of every matching rule
 * are added.
 */
export const CONDITION_TYPES = ['transaction_name'] as const;
export const CONDITION_OPERATORS = ['like', '='] as const;
export const ACTION_TYPES = ['set_transaction_category', 'set_transaction_merchant', 'set_transaction_tags'] as const;

export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];
export type ActionType = (typeof ACTION_TYPES)[number];

export interface RuleCondition {
  condition_type: (typeof CONDITION_TYPES)[number];
  operator: ConditionOperator;
  value: string;
}

/**
 * The rules' picks for the transactions of a CTE named `targets` (columns `id` (the transaction's),
 * `name`, `date`), as CTEs to follow it; the last, `picked`, has one row per matched transaction:
 * `transaction_id`, `category_id`, `merchant_id` and `tag_ids` (null when no rule sets them).
 * Records an action names that are gone (deleted since) are skipped. Takes the family four times.
 */
const RULE_PICKS = `
    matches as materialized (
      select t.id as transaction_id, r.id as rule_id, r.name as rule_name, r.actions
      from targets t join rules r on r.family_id = ?::uuid and r.active
        and (r.effective_date is null or r.effective_date <= t.date)
      where not exists (
        select 1 from jsonb_array_elements(r.conditions) c
        where not coalesce(case c->>'operator'
          when 'like' then strpos(lower(t.name), lower(c->>'value')) > 0
          when '=' then t.name = c->>'value'
        end, false))
    ), actions as (
      select m.transaction_id, m.rule_id, m.rule_name, a.position, a.action->>'action_type' as action_type,
        v.id::uuid as record_id
      from matches m
      cross join lateral jsonb_array_elements(m.actions) with ordinality as a(action, position)
      cross join lateral jsonb_array_elements_text(case jsonb_typeof(a.action->'value')
        when 'array' then a.action->'value' else jsonb_build_array(a.action->'value') end) v(id)
    ), valid as (
      select x.* from actions x
      where case x.action_type
        when 'set_transaction_category' then
          exists (select 1 from categories c where c.id = x.record_id and c.family_id = ?::uuid)
        when 'set_transaction_merchant' then
          exists (select 1 from merchants m where m.id = x.record_id and m.family_id = ?::uuid)
        when 'set_transaction_tags' then
          exists (select 1 from tags g where g.id = x.record_id and g.family_id = ?::uuid)
        else false end
    ), picked as (
      select x.transaction_id,
        (array_agg(x.record_id order by lower(x.rule_name), x.rule_id, x.position)
          filter (where x.action_type = 'set_transaction_category'))[1] as category_id,
        (array_agg(x.record_id order by lower(x.rule_name), x.rule_id, x.position)
          filter (where x.action_type = 'set_transaction_merchant'))[1] as merchant_id,
        array_agg(distinct x.record_id) filter (where x.action_type = 'set_transaction_tags') as tag_ids
      from valid x group by x.transaction_id
    )`;

/** RULE_PICKS with its parameters, for a statement whose `targets` CTE comes before it. */
export function rulePicks(familyId: string): Statement {
  return { text: RULE_PICKS, params: [familyId, familyId, familyId, familyId] };
}

/** What a rule may fill in on a transaction: what its request or CSV row did not set. */
export interface RuleTargets {
  category: boolean;
  merchant: boolean;
  tags: boolean;
}

/**
 * Applies the family's active rules to the transactions an import has just written (in the job's
 * transaction): a category, merchant or tags where the row gave none. Nothing is read when the
 * family has no active rule.
 */
export async function applyRulesToImport(run: Sql, importId: string, familyId: string): Promise<void> {
  const [any] = await run<{ found: boolean }>(
    'select exists (select 1 from rules where family_id = ?::uuid and active) as found',
    [familyId],
  );
  if (!any?.found) return;
  const picks = rulePicks(familyId);
  await run(
    `with targets as materialized (
       select e.entryable_id as id, e.name, e.date from entries e
       where e.import_id = ?::uuid and e.entryable_type = 'Transaction'
     ), ${picks.text}, details as (
       update transactions t set
         category_id = coalesce(t.category_id, p.category_id),
         merchant_id = coalesce(t.merchant_id, p.merchant_id),
         updated_at = now()
       from picked p
       where t.id = p.transaction_id
         and ((t.category_id is null and p.category_id is not null) or (t.merchant_id is null and p.merchant_id is not null))
       returning 1
     ), tagged as (
       insert into taggings (id, tag_id, taggable_type, taggable_id)
       select gen_random_uuid(), tag_id, 'Transaction', p.transaction_id
       from picked p, unnest(p.tag_ids) as tag_id
       where not exists (
         select 1 from taggings g where g.taggable_type = 'Transaction' and g.taggable_id = p.transaction_id)
       on conflict do nothing
       returning 1
     )
     select (select count(*) from details)::int as changed, (select count(*) from tagged)::int as tagged`,
    [importId, ...picks.params],
  );
}
