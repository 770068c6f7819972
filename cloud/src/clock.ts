/** The one source of time of the cloud: epoch milliseconds. Tests inject their own. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
