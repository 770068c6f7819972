/**
 * WAL checkpoints of the cloud's SQLite file off the event loop. SQLite copies the write-ahead
 * log back into the database file ("checkpoint") in the connection that commits when the log
 * passes wal_autocheckpoint pages; on the cloud's one writing connection that copy and its fsync
 * ran inside a commit on the event loop, and doubled what a commit cost (docs/decisions.md,
 * "Checkpoints in a worker"). A worker thread with its own connection runs PASSIVE checkpoints
 * instead: they copy what no reader still needs and never wait for or block a writer, and the
 * writer starts the log over once all of it was copied. The writing connection keeps a high
 * autocheckpoint as a backstop, should the worker fall behind or stop.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The writer's own checkpoint, as a backstop (pages of 4 KiB: 80 MiB of log). */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 20_000;
/** How often the worker checkpoints. */
const CHECKPOINT_EVERY_MS = 200;

// Plain CommonJS for an eval worker: it needs no loader, whatever runs the cloud (tsx, node).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
let stopped = false;
const tick = () => {
  if (stopped) return;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    // SQLITE_BUSY: another checkpoint is running (the backstop); try again at the next tick.
  }
  setTimeout(tick, workerData.everyMs);
};
parentPort.on('message', () => {
  stopped = true;
  try { db.pragma('wal_checkpoint(PASSIVE)'); } finally { db.close(); }
  parentPort.postMessage('stopped');
});
tick();
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts checkpointing the SQLite file at `path` (already in WAL mode) in a worker thread. */
export function startCheckpointer(path: string): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, module, everyMs: CHECKPOINT_EVERY_MS } });
  // A worker that fails leaves the backstop: said on stderr, never fatal.
  worker.on('error', (err) => process.emitWarning(`SQLite checkpoints in a worker stopped (the writer's own remain): ${err.message}`));
  worker.unref();
  return {
    async stop() {
      if (worker.threadId === -1) return;
      const stopped = new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.once('exit', () => resolve());
      });
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}
