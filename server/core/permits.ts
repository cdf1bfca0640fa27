/**
 * At most `size` pieces of work at once; the others wait in the order they came. Used to keep one
 * kind of request (imports) to a fixed share of a connection pool: a waiting request holds no
 * connection, so the rest of the pool stays free for everything else.
 */
export class Permits {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`permits need a size of at least 1, got ${size}`);
    this.#free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await work();
    } finally {
      // A waiting piece of work takes the permit over; only when none waits is it freed.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
