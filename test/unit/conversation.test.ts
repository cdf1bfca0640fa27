import { describe, expect, it } from 'vitest';
import {
  conversationMessages,
  estimateTokens,
  fitToBudget,
  type HistoryMessage,
} from '../../server/assistant/conversation.ts';
import { titleFromMessage } from '../../server/assistant/chat.service.ts';

const turn = (role: 'user' | 'assistant', size: number, mark: string): HistoryMessage => ({
  role,
  content: mark + 'x'.repeat(size - mark.length),
});

describe('the conversation sent to the model', () => {
  it('keeps everything that fits', () => {
    const history = [turn('user', 40, 'q1'), turn('assistant', 40, 'a1'), turn('user', 40, 'q2')];
    expect(fitToBudget(history, 1000)).toEqual(history);
  });

  it('drops the oldest messages first and starts with a user message', () => {
    const history = [
      turn('user', 400, 'q1'),
      turn('assistant', 400, 'a1'),
      turn('user', 400, 'q2'),
      turn('assistant', 400, 'a2'),
      turn('user', 400, 'q3'),
    ];
    // Each message costs 104 tokens: 350 keeps the last three, which start with a user message.
    expect(fitToBudget(history, 350).map((m) => m.content.slice(0, 2))).toEqual(['q2', 'a2', 'q3']);
    // 250 fits two, but an assistant message cannot lead: only the question is left.
    expect(fitToBudget(history, 250).map((m) => m.content.slice(0, 2))).toEqual(['q3']);
  });

  it('always keeps the latest question, even above the budget', () => {
    const history = [turn('user', 40, 'q1'), turn('assistant', 40, 'a1'), turn('user', 40_000, 'q2')];
    expect(fitToBudget(history, 100).map((m) => m.content.slice(0, 2))).toEqual(['q2']);
  });

  it('puts the system prompt first and counts it against the budget', () => {
    const history = [turn('user', 4000, 'q1'), turn('assistant', 40, 'a1'), turn('user', 40, 'q2')];
    const messages = conversationMessages({ currency: 'EUR', today: '2026-11-25' }, history, 1100);
    expect(messages[0]!.role).toBe('system');
    expect(messages[0]!.content).toContain('2026-11-25');
    expect(messages[0]!.content).toContain('EUR');
    const system = estimateTokens(messages[0]!.content as string);
    expect(system).toBeGreaterThan(100);
    // All three (1,032 tokens) would fit 1,100 alone, but not beside the prompt: q1 goes, and a1 cannot lead.
    expect(messages.slice(1).map((m) => (m.content as string).slice(0, 2))).toEqual(['q2']);
  });
});

describe('a chat title from its first message', () => {
  it('collapses white space and keeps a short message whole', () => {
    expect(titleFromMessage('  How much\n\non rent?  ')).toBe('How much on rent?');
  });

  it('cuts a long message at a word, near 80 characters', () => {
    const title = titleFromMessage(`${'word '.repeat(30)}end`);
    expect(title).toBe(`${'word '.repeat(16).trim()}…`);
    expect(title.length).toBeLessThanOrEqual(81);
  });

  it('cuts a long word at 80 characters', () => {
    expect(titleFromMessage('x'.repeat(200))).toBe(`${'x'.repeat(80)}…`);
  });
});
