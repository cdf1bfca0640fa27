import type { AccountType } from '../accounts/account.entity.ts';
import { sqlOn, type SqlTarget } from '../core/sql.ts';
import { transferKind } from './transfer-rule.ts';

/**
 * What the rest of the service needs to know of transfers: whether a transaction is in a
 * confirmed one (then it is neither income nor expense), and which. Suggestions count for nothing.
 */

/**
 * SQL: whether entry `entry` (an alias) is in one of the family's confirmed transfers, its one `?`
 * the family's id. The family's transfer entries are read once and hashed, so a listing or a sum
 * over many entries tests each in memory: two index probes per entry walked every entry of a
 * family without transfers, 170 ms for a page of income of 100,000 transactions, 16 ms this way.
 */
export function inFamilyTransfers(entry: string): string {
  return `(${entry}.id in (select unnest(array[x.outflow_entry_id, x.inflow_entry_id]) from transfers x
    where x.family_id = ? and x.status = 'confirmed'))`;
}

/** A transaction's confirmed transfer as read by confirmedTransferOf. */
export interface TransferMemberRow {
  id: string;
  /** The type of the account receiving the money: decides the kind. */
  receiving_type: AccountType;
  account_id: string;
  account_name: string;
  account_type: AccountType;
}

/**
 * SQL: the confirmed transfer of entry `entry` on account `account` (aliases) as JSON
 * (TransferMemberRow, the other side's account), or null.
 */
export function confirmedTransferOf(entry: string, account: string): string {
  return `(select json_build_object('id', x.id,
      'receiving_type', case when x.inflow_entry_id = ${entry}.id then ${account}.account_type else oa.account_type end,
      'account_id', oa.id, 'account_name', oa.name, 'account_type', oa.account_type)
    from transfers x
    join entries oe on oe.id = case when x.outflow_entry_id = ${entry}.id then x.inflow_entry_id else x.outflow_entry_id end
    join accounts oa on oa.id = oe.account_id
    where x.status = 'confirmed' and (x.outflow_entry_id = ${entry}.id or x.inflow_entry_id = ${entry}.id)
    limit 1)`;
}

/** The `transfer` member of the API's transaction object. */
export function transactionTransferView(member: TransferMemberRow | null) {
  if (!member) return null;
  return {
    id: member.id,
    kind: transferKind(member.receiving_type),
    other_account: { id: member.account_id, name: member.account_name, account_type: member.account_type },
  };
}

/**
 * The accounts on the other side of the confirmed transfer of entry `entryId`, if any: when the
 * entry goes, so does the transfer (foreign key), and the other side becomes income or expense
 * again in its account's daily balances, which its sync must recompute.
 */
export async function transferPartnerAccounts(target: SqlTarget, entryId: string): Promise<string[]> {
  const rows = await sqlOn(target)<{ account_id: string }>(
    `select oe.account_id from transfers x
       join entries oe on oe.id = case when x.outflow_entry_id = ?::uuid then x.inflow_entry_id else x.outflow_entry_id end
     where x.status = 'confirmed' and (x.outflow_entry_id = ?::uuid or x.inflow_entry_id = ?::uuid)`,
    [entryId, entryId, entryId],
  );
  return rows.map((row) => row.account_id);
}
