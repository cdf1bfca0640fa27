/** A fixed-window counter as a request sees it: points spent in the window, and when it ends (epoch ms). */
export interface WindowCount {
  points: number;
  expire: number;
}

interface Holding {
  expire: number;
  /** The highest point of the shared counter this process has reserved or seen in the window. */
  top: number;
  /** Points of this process's reservations not spent yet (top - available: the count a request sees). */
  available: number;
  /** Points beyond each request's own of this process's reservations still on their way (sent, not recorded). */
  pending: number;
}

/** Reservations grow with what is left, up to this many points a round trip. */
const LARGEST_BATCH = 100;
/**
 * A process holds at most this share of what is left (unspent, or on its way in reservations sent
 * at once by concurrent requests), so points stranded in one process refuse another's clients at
 * most limit / 16 - 1 requests early.
 */
const SHARE_OF_REMAINING = 1 / 16;

/**
 * The points this process has reserved from the shared counters of `rate_limits` (one per client
 * address and per credential). A request spends a held point without a round trip; when none is
 * left, the access statement reserves a batch for the counter (`reserve`) and `record` takes its
 * points (or `abandon` gives them up when the statement failed). Every admitted request spends a
 * point reserved from the shared row, never above the limit, so all processes together never admit
 * more than the limit. Far from it a batch is up to 100 points; near it (and for a counter not seen
 * yet in this window) one point, as without batching, and what a process holds or has on its way
 * stays under 1/16 of what is left, so points held unspent by other processes can refuse a client
 * only a few requests early. Headers count what this process has seen; with one process they are exact.
 */
export class RateLimitLedger {
  readonly #holdings = new Map<string, Holding>();

  /** `maxKeys` bounds memory: past it, finished windows are dropped, then (if need be) everything held. */
  constructor(private readonly maxKeys = 10_000) {}

  /** Spends a held point of `key`, or answers undefined when the request must reserve. */
  take(key: string, now: number): WindowCount | undefined {
    const holding = this.#holdings.get(key);
    if (!holding || holding.expire <= now || holding.available === 0) return undefined;
    holding.available--;
    return { points: holding.top - holding.available, expire: holding.expire };
  }

  /** How many points to reserve for `key` under `limit`; they count as on their way until `record` or `abandon`. */
  reserve(key: string, limit: number, now: number): number {
    const holding = this.#holdings.get(key);
    if (!holding || holding.expire <= now) return 1;
    const allowance = Math.floor((limit - holding.top) * SHARE_OF_REMAINING) - 1 - holding.available - holding.pending;
    const extra = Math.max(0, Math.min(LARGEST_BATCH - 1, allowance));
    holding.pending += extra;
    return 1 + extra;
  }

  /** A reservation whose statement failed: its points are no longer on their way. */
  abandon(key: string, reserved: number): void {
    this.#settle(this.#holdings.get(key), reserved);
  }

  /**
   * Takes the `reserved` points that brought the shared counter to `shared`, spends the first one
   * for this request and returns the count it sees; `points` above `limit` means refused.
   */
  record(key: string, reserved: number, shared: WindowCount, limit: number, now: number): WindowCount {
    const first = shared.points - reserved + 1;
    const usable = Math.max(0, Math.min(shared.points, limit) - first + 1);
    if (!this.#holdings.has(key) && this.#holdings.size >= this.maxKeys) this.#makeRoom(now);
    const held = this.#holdings.get(key);
    // Requests of this process that reserved at the same time add to what it holds in the window.
    const same = held && held.expire === shared.expire;
    if (same) this.#settle(held, reserved);
    if (usable === 0) {
      if (same) held.top = Math.max(held.top, shared.points);
      else this.#holdings.set(key, { expire: shared.expire, top: shared.points, available: 0, pending: 0 });
      return shared;
    }
    const last = first + usable - 1;
    if (same) {
      held.top = Math.max(held.top, last);
      held.available += usable - 1;
    } else {
      this.#holdings.set(key, { expire: shared.expire, top: last, available: usable - 1, pending: 0 });
    }
    return { points: first, expire: shared.expire };
  }

  #settle(holding: Holding | undefined, reserved: number): void {
    if (holding) holding.pending = Math.max(0, holding.pending - (reserved - 1));
  }

  /** Drops finished windows; if that frees nothing, forgets everything (held points are lost: refusals come early, never late). */
  #makeRoom(now: number): void {
    for (const [key, holding] of this.#holdings) if (holding.expire <= now) this.#holdings.delete(key);
    if (this.#holdings.size >= this.maxKeys) this.#holdings.clear();
  }
}
