import type { AssistantTool } from './assistant-tool.ts';
import { accountsTool } from './accounts-tool.ts';
import { balanceSheetTool } from './balance-sheet-tool.ts';
import { holdingsTool } from './holdings-tool.ts';
import { spendingTool } from './spending-tool.ts';
import { transactionsTool } from './transactions-tool.ts';

/** Every tool the assistant may call, in the order they are offered to the model. All are read-only. */
export const ASSISTANT_TOOLS: readonly AssistantTool[] = [
  accountsTool,
  transactionsTool,
  spendingTool,
  balanceSheetTool,
  holdingsTool,
];

/** The tool of that name, if there is one. */
export function findTool(name: string): AssistantTool | undefined {
  return ASSISTANT_TOOLS.find((tool) => tool.name === name);
}
