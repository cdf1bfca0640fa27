/**
 * Arguments that match a tool's schema but not each other (a range that ends before it starts).
 * `runTool` (tool-runner.ts) answers the model with the message instead of failing the job, so the message must
 * name the property to change.
 */
export class InvalidToolArguments extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidToolArguments';
  }
}

/** Refuses a date range whose `end_date` is before its `start_date` (both inclusive, `YYYY-MM-DD`). */
export function checkDateOrder(range: { start_date?: string; end_date?: string }): void {
  // Calendar dates in this one format compare correctly as text.
  if (range.start_date && range.end_date && range.end_date < range.start_date) {
    throw new InvalidToolArguments(`end_date (${range.end_date}) must be on or after start_date (${range.start_date})`);
  }
}

/** Refuses bounds where `max` is below `min`. */
export function checkBoundsOrder(minName: string, min: number | undefined, maxName: string, max: number | undefined) {
  if (min !== undefined && max !== undefined && max < min) {
    throw new InvalidToolArguments(`${maxName} (${max}) must not be below ${minName} (${min})`);
  }
}
