/** The current time in epoch milliseconds. Injected where expiry matters, so tests can move it. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
