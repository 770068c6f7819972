/**
 * The cloud of the noisy-neighbour scenario as a process of its own: the cloud's settings with
 * SQLite (or PostgreSQL: a `postgres://` URL and a schema), the embedded MQTT broker on a free
 * port and the given fleet file, logs off. Reports its HTTP and broker URLs to the parent over IPC
 * and runs until killed.
 *
 * Usage (with an IPC channel): node --import tsx bench/noisy-server.ts <fleet file> <SQLite file | postgres URL> [schema]
 */
import { startCloud } from '../cloud/src/cloud.js';
import { loadCloudSettings } from '../cloud/src/settings.js';

const [fleetFile, database, pgSchema] = process.argv.slice(2);
const where = database!.startsWith('postgres://') ? { databaseUrl: database, pgSchema } : { sqlitePath: database };
const cloud = await startCloud(
  loadCloudSettings(
    {},
    { config: { host: '127.0.0.1', port: 0, fleetFile, logLevel: 'silent', ...where }, mqtt: { brokerPort: 0 } },
  ),
);
process.send?.({ url: cloud.url, brokerUrl: cloud.brokerUrl });
// Exits on SIGTERM (normally, so that --cpu-prof writes its profile) or with the parent.
process.on('SIGTERM', () => void cloud.stop().finally(() => process.exit(0)));
process.on('disconnect', () => process.exit(0));
