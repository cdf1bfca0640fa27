import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServerBusy } from '../../server/core/errors.ts';
import { WorkSlots } from '../../server/core/work-slots.ts';

/** A piece of work that runs until the test lets it finish. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let started = false;
  return {
    work: async () => {
      started = true;
      await done;
      return 'done';
    },
    finish,
    started: () => started,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => vi.useRealTimers());

describe('WorkSlots', () => {
  it('runs at most its size at once; the rest wait their turn in order', async () => {
    const slots = new WorkSlots(2, 60_000);
    const pieces = Array.from({ length: 5 }, held);
    const results = pieces.map((piece) => slots.run(piece.work));
    await settle();
    expect(pieces.map((piece) => piece.started())).toEqual([true, true, false, false, false]);
    pieces[1]!.finish();
    await settle();
    expect(pieces.map((piece) => piece.started())).toEqual([true, true, true, false, false]);
    pieces[0]!.finish();
    pieces[2]!.finish();
    await settle();
    expect(pieces.map((piece) => piece.started())).toEqual([true, true, true, true, true]);
    pieces.forEach((piece) => piece.finish());
    expect(await Promise.all(results)).toEqual(Array(5).fill('done'));
  });

  it('refuses at once without a wait, and frees the slot of work that failed', async () => {
    const slots = new WorkSlots(1, 0);
    const first = held();
    const running = slots.run(first.work);
    await expect(slots.run(async () => 'second')).rejects.toBeInstanceOf(ServerBusy);
    first.finish();
    await running;
    await expect(slots.run(() => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(await slots.run(async () => 'third')).toBe('third');
  });

  it('refuses a waiter after the wait with 503 and when to retry, and gives its turn to nobody', async () => {
    vi.useFakeTimers();
    const slots = new WorkSlots(1, 1500);
    const first = held();
    const running = slots.run(first.work);
    const waiting = slots.run(async () => 'late');
    const refusal = waiting.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1500);
    const error = await refusal;
    expect(error).toBeInstanceOf(ServerBusy);
    expect(error).toMatchObject({ kind: 'busy', code: 'server_busy', retryAfterSeconds: 2 });
    first.finish();
    await running;
    // The refused waiter's turn did not keep the slot: the next piece runs at once.
    expect(await slots.run(async () => 'next')).toBe('next');
  });

  it('with no wait limit, lets waiters wait however long it takes, in order', async () => {
    vi.useFakeTimers();
    const slots = new WorkSlots(1, Infinity);
    const first = held();
    const running = slots.run(first.work);
    const order: string[] = [];
    const waiting = ['b', 'c'].map((name) => slots.run(async () => void order.push(name)));
    await vi.advanceTimersByTimeAsync(24 * 3600_000);
    expect(order).toEqual([]);
    first.finish();
    await running;
    await Promise.all(waiting);
    expect(order).toEqual(['b', 'c']);
  });
});
