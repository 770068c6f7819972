/** The agent's only source of time: every stored timestamp and every timeout reads it. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
