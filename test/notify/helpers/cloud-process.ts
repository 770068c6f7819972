/**
 * A cloud process for crash tests: startCloud() from the environment (database, NOTIFY_*,
 * STORAGE_CLOCK_*) with the notification dispatcher and the storage clock as its parts. Prints
 * `ready <url>` once it is up; SIGTERM stops it gracefully, SIGKILL is what the tests use.
 */
import { startCloud } from '../../../cloud/src/cloud.js';
import { loadConfig } from '../../../cloud/src/config.js';
import { loadStorageClockSettings } from '../../../cloud/src/expiry/settings.js';
import { createStorageClock } from '../../../cloud/src/expiry/storage-clock.js';
import { createNotificationDispatcher } from '../../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../../../cloud/src/notify/settings.js';

const cloud = await startCloud(loadConfig(process.env, { port: 0 }), {
  parts: [
    (deps) => createNotificationDispatcher(deps, loadNotifySettings(process.env)),
    (deps) => createStorageClock(deps, loadStorageClockSettings(process.env)),
  ],
});
process.stdout.write(`ready ${cloud.url}\n`);
process.once('SIGTERM', () => {
  cloud.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
