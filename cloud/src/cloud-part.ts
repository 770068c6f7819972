/** A background part of the cloud process and what it is built from (cloud.ts starts them). */
import type { Scheduler } from './scheduler.js';
import type { ServiceDeps } from './services.js';

export interface CloudPart {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What a background part is built from: the services' deps and the process's scheduler. */
export interface PartDeps extends ServiceDeps {
  scheduler: Scheduler;
}
