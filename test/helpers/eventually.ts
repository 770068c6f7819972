/**
 * Waiting for something the system under test does asynchronously. Every wait follows state
 * (checked again and again), never a fixed sleep; the bound only turns a hang into a failure that
 * says what did not happen, so it is generous: a busy machine (other processes, the suite's own
 * children) may be many times slower than an idle one.
 */

/** Default bound of a wait for state, ms. */
export const WAIT_BOUND_MS = 30_000;

/** Polls `fn` until it returns a value (not undefined, null or false). */
export async function eventually<T>(
  fn: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  what: string,
  timeoutMs = WAIT_BOUND_MS,
  stepMs = 20,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false && v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
