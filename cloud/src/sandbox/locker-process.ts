/**
 * One sandbox locker as its own process: the hardware simulator (boards and scanner on real
 * bytes over TCP, its control API) behind a real agent (SQLite, screen, MQTT link to the cloud),
 * as `npm start` runs every locker. The cloud's SandboxLockers starts it with
 * `node --import tsx cloud/src/sandbox/locker-process.ts` and writes the RigOrder below as the
 * first line of its stdin (never on the command line or in the environment: it carries the
 * locker's MQTT password, and another user of the machine can read those in the process list),
 * reads the `ready {...}` line it writes with its screen and simulator URLs, and stops it with
 * SIGTERM or by closing its stdin (so a cloud that dies takes its lockers with it).
 */
import { destination, pino } from 'pino';
import { z } from 'zod';
import { LOG_LEVELS, loggerOptions } from '../../../shared/src/redact.js';
import { startLockerRig } from '../../../demo/fleet-runner.js';
import { rigOrderSchema, READY_PREFIX } from './rig-order.js';

/** The first line of stdin; the pipe stays open after it as the lifeline to the cloud. */
function firstLine(): Promise<string> {
  return new Promise((resolveLine, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end < 0) return;
      process.stdin.off('data', onData);
      process.stdin.off('end', onEnd);
      process.stdin.pause();
      resolveLine(text.slice(0, end));
    };
    const onEnd = (): void => reject(new Error('stdin closed before the rig order'));
    process.stdin.on('data', onData);
    process.stdin.once('end', onEnd);
  });
}

async function main(): Promise<void> {
  const order = rigOrderSchema.parse(JSON.parse(await firstLine()));
  const logger = pino(loggerOptions('sandbox-locker', z.enum(LOG_LEVELS).parse(order.logLevel)), destination(2));
  const rig = await startLockerRig({
    locker: order.locker,
    mqtt: { url: order.brokerUrl, password: order.password },
    dataDir: order.dataDir,
    screenPort: order.ports?.screenPort ?? 0,
    simPort: order.ports?.simPort ?? 0,
    hardwarePort: order.ports?.hardwarePort ?? 0,
    logger,
  });
  process.stdout.write(`${READY_PREFIX}${JSON.stringify({ screenUrl: rig.screenUrl, simUrl: rig.simUrl })}\n`);
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ lockerId: order.locker.id, why }, 'sandbox locker stopping');
    rig.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'sandbox locker: stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.stdin.on('end', () => stop('the cloud closed the pipe'));
  process.stdin.resume();
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox locker failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
