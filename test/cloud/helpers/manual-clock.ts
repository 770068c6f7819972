import type { Clock } from '../../../cloud/src/clock.js';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: string | number) {
    this.#now = typeof start === 'number' ? start : Date.parse(start);
  }
  now(): number {
    return this.#now;
  }
  set(at: string | number): void {
    this.#now = typeof at === 'number' ? at : Date.parse(at);
  }
  advance(ms: number): void {
    this.#now += ms;
  }
}
