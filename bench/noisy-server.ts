/**
 * The cloud of the noisy-neighbour scenario as a process of its own: the cloud's settings with
 * SQLite, the embedded MQTT broker on a free port and the given fleet file, logs off. Reports its
 * HTTP and broker URLs to the parent over IPC and runs until killed.
 *
 * Usage (with an IPC channel): node --import tsx bench/noisy-server.ts <fleet file> <database file>
 */
import { startCloud } from '../cloud/src/cloud.js';
import { loadCloudSettings } from '../cloud/src/settings.js';

const [fleetFile, databaseFile] = process.argv.slice(2);
const cloud = await startCloud(
  loadCloudSettings(
    {},
    { config: { host: '127.0.0.1', port: 0, fleetFile, logLevel: 'silent', sqlitePath: databaseFile }, mqtt: { brokerPort: 0 } },
  ),
);
process.send?.({ url: cloud.url, brokerUrl: cloud.brokerUrl });
// Exits on SIGTERM (normally, so that --cpu-prof writes its profile) or with the parent.
process.on('SIGTERM', () => void cloud.stop().finally(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
