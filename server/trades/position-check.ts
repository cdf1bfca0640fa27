import { BOUNDS } from '../core/money/bounds.ts';
import { exceeds } from '../core/money/exact-decimal.ts';
import type { Sql } from '../core/sql.ts';
import { accountPositions, END_OF_TIME } from '../holdings/account-positions.ts';
import type { Position } from '../holdings/holding.positions.ts';

/** What is wrong with a position. */
export interface PositionProblem {
  message: string;
  /** What caused it: a sale (below zero held), a buy (too many held), or either (worth too much). */
  cause: 'sale' | 'buy' | 'value';
}

/**
 * The rule every trade write checks (one by a client, or all of an import's): never fewer units
 * than zero on any date (a sale of what is not held), and within the bounds the holdings columns
 * store.
 */
export function positionProblem(position: Position): PositionProblem | undefined {
  if (position.qty.startsWith('-')) return { message: 'Cannot sell more shares than held', cause: 'sale' };
  if (exceeds(position.qty, BOUNDS.heldQty)) {
    return { message: `The shares held would exceed ${BOUNDS.heldQty}`, cause: 'buy' };
  }
  if (exceeds(position.amount, BOUNDS.amount)) {
    return { message: `The position would be worth more than ${BOUNDS.amount}`, cause: 'value' };
  }
  return undefined;
}

/**
 * The first position of an account's `securities` that breaks the rule, on any date (future-dated
 * trades included), from the stored trades: run after the writes, inside their transaction and
 * under the account lock, so a refused write rolls back with it.
 */
export async function firstPositionProblem(
  run: Sql,
  accountId: string,
  securities: ReadonlySet<string>,
): Promise<{ position: Position; problem: PositionProblem } | undefined> {
  const only = securities.size === 1 ? [...securities][0] : undefined;
  const positions = await accountPositions((statement) => run(statement.text, statement.params), accountId, {
    securityId: only,
    today: END_OF_TIME,
  });
  for (const position of positions) {
    if (!securities.has(position.securityId)) continue;
    const problem = positionProblem(position);
    if (problem) return { position, problem };
  }
  return undefined;
}
