/**
 * The cloud of a fault-suite run, as its own process: startCloud() with the standard background
 * parts (notification dispatcher, storage clock, locker link to MQTT_URL) configured from the
 * environment like `npm run cloud`, on the run's shared clock, with crash points in the locker
 * link's hooks that the test arms over IPC. Writes `ready <url>` when listening.
 */
import { CloudBackground, loadBackgroundSettings } from '../../cloud/src/background.js';
import { startCloud } from '../../cloud/src/cloud.js';
import { loadConfig } from '../../cloud/src/config.js';
import { CrashSwitch, READY, fileLogger, sharedClock } from './child-support.js';

const env = process.env;
const crash = new CrashSwitch();
const background = new CloudBackground(loadBackgroundSettings(env), {
  hooks: {
    afterEvents(lockerId, result) {
      if (result.applied > 0) crash.pass('cloud:events-committed', { lockerId, ackedDseq: result.ackedDseq, applied: result.applied });
    },
    beforePublish(lockerId, message) {
      if (message.type === 'commands') crash.pass('cloud:commands-read', { lockerId, from: message.items[0]?.cseq, to: message.items.at(-1)?.cseq });
    },
  },
  options: { resendAfterMs: Number(env.FAULT_LINK_RESEND_MS ?? 30_000), pollIntervalMs: Number(env.FAULT_LINK_POLL_MS ?? 10_000) },
});
const cloud = await startCloud(loadConfig(env), { clock: sharedClock(env), logger: fileLogger('cloud', env), parts: background.parts() });
process.stdout.write(`${READY} ${cloud.url}\n`);
process.once('SIGTERM', () => {
  cloud.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
