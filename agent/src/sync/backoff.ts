/**
 * Waits between connection attempts: doubling from `minMs` up to `maxMs`, each drawn between half
 * and all of that step, so that a fleet cut off together does not come back in one burst.
 */
export class Backoff {
  #step = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
    private readonly random: () => number,
  ) {}

  next(): number {
    const ceiling = Math.min(this.maxMs, this.minMs * 2 ** this.#step);
    if (ceiling < this.maxMs) this.#step++;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.#step = 0;
  }
}
