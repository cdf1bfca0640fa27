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
      const batch = ledger.reserve('k', limit, 0);
      shared.points += batch;
      count = ledger.record('k', batch, { ...shared }, limit, 0);
    }
    if (count.points <= limit) admitted++;
    seen.push(count.points);
  }
  return { admitted, seen, shared: shared.points };
}

/**
 * Concurrent requests: each `start` either spends a held point or sends a reservation, which the
 * shared counter takes at once (the statement's upsert) and the process records later, in any order.
 * Ends with every reservation recorded; returns what each process holds unspent.
 */
function simulateConcurrent(limit: number, steps: { process: number; finish: boolean }[], processes: number) {
  const ledgers = Array.from({ length: processes }, () => new RateLimitLedger());
  const shared: WindowCount = { points: 0, expire: 1_000 };
  const inFlight: { process: number; batch: number; counted: WindowCount }[] = [];
  let admitted = 0;
  const finish = (index: number) => {
    const [sent] = inFlight.splice(index, 1);
    const count = ledgers[sent!.process]!.record('k', sent!.batch, sent!.counted, limit, 0);
    if (count.points <= limit) admitted++;
  };
  for (const step of steps) {
    if (step.finish && inFlight.length > 0) {
      finish(step.process % inFlight.length);
      continue;
    }
    const process = step.process % processes;
    const held = ledgers[process]!.take('k', 0);
    if (held) {
      if (held.points <= limit) admitted++;
      continue;
    }
    const batch = ledgers[process]!.reserve('k', limit, 0);
    shared.points += batch;
    inFlight.push({ process, batch, counted: { ...shared } });
  }
  while (inFlight.length > 0) finish(0);
  const unspent = ledgers.map((ledger) => {
    let count = 0;
    while (ledger.take('k', 0)) count++;
    return count;
  });
  return { admitted, unspent, shared: shared.points };
}

describe('RateLimitLedger', () => {
  it('under concurrent reservations, never admits more than the limit, nor strands more than limit / 16 - 1 points a process', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ process: fc.nat(50), finish: fc.boolean() }), { maxLength: 800 }),
        (limit, processes, steps) => {
          const { admitted, unspent, shared } = simulateConcurrent(limit, steps, processes);
          expect(admitted).toBeLessThanOrEqual(limit);
          const most = Math.max(0, Math.floor(limit / 16) - 1);
          for (const points of unspent) expect(points).toBeLessThanOrEqual(most);
          // Every point up to the limit went to an admitted request or is held unspent.
          if (shared >= limit) expect(admitted + unspent.reduce((a, b) => a + b, 0)).toBe(limit);
        },
      ),
    );
  });

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
    expect(ledger.reserve('k', 10_000, 0)).toBe(1);
    ledger.record('k', 1, { points: 1, expire: 1_000 }, 10_000, 0);
    expect(ledger.reserve('k', 10_000, 0)).toBe(100);
    // Near the limit (a ledger with nothing on its way, so only the limit decides).
    const near = new RateLimitLedger();
    near.record('k', 1, { points: 1, expire: 1_000 }, 20, 0);
    expect(near.reserve('k', 20, 0)).toBe(1);
  });

  it('counts a batch on its way until it is recorded or abandoned', () => {
    const ledger = new RateLimitLedger();
    ledger.record('k', 1, { points: 1, expire: 1_000 }, 1_601, 0);
    // 1,600 left: a process may hold 1,600 / 16 = 100 points, the request's own included.
    expect(ledger.reserve('k', 1_601, 0)).toBe(100);
    expect(ledger.reserve('k', 1_601, 0)).toBe(1);
    ledger.abandon('k', 100);
    expect(ledger.reserve('k', 1_601, 0)).toBe(100);
  });

  it('counts one by one within one process, as the headers show', () => {
    expect(simulate(10_000, Array(6).fill(0), 1).seen).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('starts again when the window has ended', () => {
    const ledger = new RateLimitLedger();
    ledger.record('k', 1, { points: 1, expire: 1_000 }, 5, 0);
    expect(ledger.take('k', 1_000)).toBeUndefined();
    expect(ledger.reserve('k', 10_000, 1_000)).toBe(1);
  });
});
