import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/** A message of the chat as the model sees it. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface PromptFacts {
  currency: string;
  /** YYYY-MM-DD in UTC. */
  today: string;
}

/** What the model is told before the conversation: who it serves, the date, and the rules. */
export function systemPrompt(facts: PromptFacts): string {
  return [
    "You are the assistant of a household's personal finance app. You answer questions about the",
    "household's own accounts, transactions, holdings and spending.",
    `Today is ${facts.today}. The household's currency is ${facts.currency}; amounts in other currencies`,
    'keep their own currency code.',
    'Rules:',
    '- Take every figure from a tool result. Never invent, estimate or round numbers the tools did not give.',
    '- When a tool returns an error, correct the arguments or tell the user what is missing.',
    '- Say which period and which accounts an answer covers when it matters.',
    '- In transactions, a positive amount is money going out (an expense), a negative amount is money coming in.',
    '- Give no advice to buy or sell securities.',
    '- Answer briefly, in Markdown, in the language of the question.',
  ].join('\n');
}

/** A rough token count (about four characters per token): enough to keep within a budget. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4) + 4;
}

/**
 * The newest messages that fit in `budget` tokens, oldest dropped first. The latest message always
 * stays (it is the question), and the kept part starts with a user message, as providers expect.
 */
export function fitToBudget(history: HistoryMessage[], budget: number): HistoryMessage[] {
  let used = 0;
  let start = history.length;
  while (start > 0) {
    const cost = estimateTokens(history[start - 1]!.content);
    if (start < history.length && used + cost > budget) break;
    used += cost;
    start -= 1;
  }
  while (start < history.length - 1 && history[start]!.role !== 'user') start += 1;
  return history.slice(start);
}

/** The request's messages: the system prompt, then the conversation that fits. */
export function conversationMessages(
  facts: PromptFacts,
  history: HistoryMessage[],
  budget: number,
): ChatCompletionMessageParam[] {
  const system = systemPrompt(facts);
  return [
    { role: 'system', content: system },
    ...fitToBudget(history, budget - estimateTokens(system)).map((message) => ({ ...message })),
  ];
}
