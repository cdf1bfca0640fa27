import { ServerBusy } from './errors.ts';

interface Waiter {
  start(): void;
  timer?: NodeJS.Timeout;
}

/**
 * At most `size` pieces of work at once; the rest wait in turn, each at most `waitMs`, and are then
 * refused with ServerBusy (503, Retry-After) instead of piling up. For work whose cost is memory
 * as much as time (a password hash holds 128 MiB while it runs), where queuing without a bound
 * would only move the problem. With `waitMs` Infinity the rest wait as long as it takes: to keep
 * one kind of request (imports) to a fixed share of a connection pool, where a waiting request
 * holds no connection.
 */
export class WorkSlots {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly size: number,
    readonly waitMs: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.take();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private take(): Promise<void> {
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waitMs <= 0) return Promise.reject(this.refusal());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { start: resolve };
      if (Number.isFinite(this.waitMs))
        waiter.timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(this.refusal());
        }, this.waitMs);
      this.waiting.push(waiter);
    });
  }

  /** A finished piece hands its slot to the longest waiter, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.running--;
      return;
    }
    clearTimeout(next.timer);
    next.start();
  }

  private refusal(): ServerBusy {
    return new ServerBusy(Math.max(1, Math.ceil(this.waitMs / 1000)));
  }
}
