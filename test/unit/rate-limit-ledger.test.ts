import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateLimitLedger, type WindowCount } from '../../server/http/rate-limit-ledger.ts';

/**
 * The ledgers of several processes against one shared counter that adds points as the access
 * statement's upsert does (the real statement runs in test/api/access-between-processes.test.ts).
 * Requests arrive in any order; each either spends a held point or reserves a batch first.
 */
function simulate(limit: number, order: number[], processes: number) {
  const ledgers = Array.from({ length: processes }, () => new RateLimitLedger());
  const shared: WindowCount = { points: 0, expire: 1_000 };
  const seen: number[] = [];
  let admitted = 0;
  for (const process of order) {
    const ledger = ledgers[process % processes]!;
    let count = ledger.take('k', 0);
    if (!count) {
      const batch = ledger.batchSize('k', limit, 0);
      shared.points += batch;
      count = ledger.record('k', batch, { ...shared }, limit, 0);
    }
    if (count.points <= limit) admitted++;
    seen.push(count.points);
  }
  return { admitted, seen, shared: shared.points };
}

describe('RateLimitLedger', () => {
  it('never lets processes together admit more than the limit, whatever the order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 600 }),
        (limit, processes, order) => {
          expect(simulate(limit, order, processes).admitted).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });

  it('admits exactly the limit when every process keeps getting requests', () => {
    for (const limit of [1, 3, 40, 1_000, 10_000]) {
      const order = Array.from({ length: limit + 50 }, (_, i) => i);
      expect(simulate(limit, order, 3).admitted).toBe(limit);
    }
  });

  it('reserves one point for a counter it has not seen, then batches far from the limit', () => {
    const ledger = new RateLimitLedger();
    expect(ledger.batchSize('k', 10_000, 0)).toBe(1);
    ledger.record('k', 1, { points: 1, expire: 1_000 }, 10_000, 0);
    expect(ledger.batchSize('k', 10_000, 0)).toBe(100);
    expect(ledger.batchSize('k', 20, 0)).toBe(1);
  });

  it('counts one by one within one process, as the headers show', () => {
    expect(simulate(10_000, Array(6).fill(0), 1).seen).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('starts again when the window has ended', () => {
    const ledger = new RateLimitLedger();
    ledger.record('k', 1, { points: 1, expire: 1_000 }, 5, 0);
    expect(ledger.take('k', 1_000)).toBeUndefined();
    expect(ledger.batchSize('k', 10_000, 1_000)).toBe(1);
  });
});
