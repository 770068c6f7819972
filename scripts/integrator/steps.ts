/**
 * The walk-through's steps, numbered and timed: each prints one line with what it found, its own
 * time and the time since the start; the first failure stops the walk-through, printing the error
 * and the last output of the cloud.
 */
export type Step = (title: string, run: () => Promise<string>) => Promise<void>;

class StepFailed extends Error {}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Runs `body`'s steps in order; true when every one passed. */
export async function runSteps(body: (step: Step) => Promise<void>, cloudOutput: () => string, write: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<boolean> {
  const start = performance.now();
  let n = 0;
  const step: Step = async (title, run) => {
    n += 1;
    const began = performance.now();
    try {
      const found = await run();
      write(`ok ${n}. ${title}: ${found} (${seconds(performance.now() - began)}, at ${seconds(performance.now() - start)})`);
    } catch (err) {
      write(`FAILED ${n}. ${title}: ${err instanceof Error ? err.message : String(err)} (${seconds(performance.now() - began)})`);
      throw new StepFailed();
    }
  };
  try {
    await body(step);
    write(`walkthrough passed: ${n} steps in ${seconds(performance.now() - start)}`);
    return true;
  } catch (err) {
    if (!(err instanceof StepFailed)) write(`FAILED outside a step: ${err instanceof Error ? err.message : String(err)}`);
    const output = cloudOutput().trim();
    if (output) write(`the cloud's last output:\n${output}`);
    write(`walkthrough failed after ${seconds(performance.now() - start)}`);
    return false;
  }
}
