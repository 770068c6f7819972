/**
 * The link's timers, injectable so that tests can drive the resend timeout by hand while the
 * network runs in real time.
 */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  setTimeout(fn, ms) {
    // A pending retry never keeps the process alive on its own.
    return setTimeout(fn, ms).unref();
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
