/**
 * How every entry point (demo, cloud, agent, simulator) stops on SIGINT and SIGTERM, in one place.
 *
 * The package scripts `exec` node, so a signal sent to npm's pid (what a process manager or CI
 * does) reaches the program itself instead of orphaning it. A terminal's Ctrl-C then arrives twice,
 * once from the terminal and once forwarded by npm, so a repeat within a moment is the same request;
 * a later one means "stop at once".
 */

/** Signals closer together than this are one request delivered twice (terminal plus npm). */
export const REPEAT_SIGNAL_GRACE_MS = 1_000;

export interface StopSignalOptions {
  /** Said when a stop begins and when a later signal forces the exit. */
  say?: (line: string) => void;
  /** The process to watch (tests pass an emitter); defaults to this process. */
  target?: Pick<NodeJS.Process, 'on' | 'exit'>;
  now?: () => number;
}

/**
 * Calls `stop` on the first SIGINT or SIGTERM and exits 0 when it settles (1 if it fails);
 * a repeat after the grace exits 1 at once.
 */
export function onStopSignals(stop: (signal: NodeJS.Signals) => Promise<void>, opts: StopSignalOptions = {}): void {
  const target = opts.target ?? process;
  const now = opts.now ?? Date.now;
  const say = opts.say ?? (() => undefined);
  let firstAt: number | undefined;
  const handle = (signal: NodeJS.Signals): void => {
    if (firstAt !== undefined) {
      if (now() - firstAt < REPEAT_SIGNAL_GRACE_MS) return;
      say(`${signal} again: stopping now`);
      target.exit(1);
      return;
    }
    firstAt = now();
    say(`${signal}: stopping (send it again to stop at once)`);
    stop(signal).then(
      () => target.exit(0),
      () => target.exit(1),
    );
  };
  target.on('SIGINT', () => handle('SIGINT'));
  target.on('SIGTERM', () => handle('SIGTERM'));
}
