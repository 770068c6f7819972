/**
 * A cloud locker link in a process of its own, for tests with two cloud processes on one SQLite
 * file. Settings come from the environment; prints "ready" once connected and stops on SIGTERM.
 */
import pino from 'pino';
import { openDatabase } from '../../cloud/src/db/database.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { createLockerLink } from '../../cloud/src/sync/locker-link.js';
import { recordEffect } from './test-effect.js';

const env = process.env;
const db = await openDatabase({ sqlitePath: env.LINK_SQLITE_PATH, databaseUrl: env.LINK_DATABASE_URL, pgSchema: env.LINK_PG_SCHEMA });
const link = createLockerLink({
  db,
  signals: new OutboxSignals(),
  clock: { now: () => Date.now() },
  logger: pino({ level: env.LOG_LEVEL ?? 'silent' }),
  mqtt: {
    url: env.LINK_MQTT_URL!,
    username: env.LINK_MQTT_USERNAME!,
    password: env.LINK_MQTT_PASSWORD!,
    clientId: env.LINK_MQTT_CLIENT_ID!,
    sharedGroup: env.LINK_SHARED_GROUP || undefined,
  },
  applyEvent: recordEffect,
  options: { pollIntervalMs: 3600_000, trimIntervalMs: 3600_000 },
});
await link.start();
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void link
    .stop()
    .then(() => db.close())
    .finally(() => process.exit(0));
});
