/**
 * One throwaway world for locker-link tests: a cloud database (SQLite file or PostgreSQL
 * schema), a broker (the embedded one with per-locker auth, or the machine's open Mosquitto at
 * MQTT_URL), a movable clock, and any number of cloud link instances on that database.
 * Locker ids are random so that runs sharing the machine's Mosquitto never meet.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { EmbeddedBroker } from '../../cloud/src/broker/embedded-broker.js';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { type CloudDatabase, type Engine, openDatabase } from '../../cloud/src/db/database.js';
import { lockerTransaction } from '../../cloud/src/db/transaction.js';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import { recordEffect } from './test-effect.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { type LockerLink, type LockerLinkOptions, createLockerLink } from '../../cloud/src/sync/locker-link.js';
import type { CommandBody } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { connectClient } from '../broker/mqtt-client.js';
import { ScriptedLocker } from './scripted-locker.js';

export type BrokerKind = 'embedded' | 'external';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' });
const PROFILE = JSON.stringify({
  location: { id: 1, city: 'Moscow', street: 'Tverskaya', house: '1', latitude: 55.76, longitude: 37.61, fullAddress: 'Moscow, Tverskaya 1' },
});
const CLOUD = { username: 'cloud', password: 'cloud-test-secret' };

export interface LinkWorld {
  readonly tdb: TestDatabase;
  readonly url: string;
  readonly clock: { t: number; now(): number };
  readonly signals: OutboxSignals;
  /** Starts a link instance; `own` gives it its own database pool (PostgreSQL only: SQLite waits synchronously). */
  startLink(opts?: { options?: Partial<LockerLinkOptions>; own?: boolean; sharedGroup?: string }): Promise<LockerLink>;
  /** Starts a link instance in a child process on the same database (another cloud process). */
  startLinkProcess(sharedGroup?: string): Promise<void>;
  /** Inserts a locker with a password; returns its id. */
  addLocker(): Promise<{ id: number; password: string }>;
  connect(lockerId: number, conn: number): Promise<ScriptedLocker>;
  /** Records commands in the log the way every API change does; returns their cseqs. */
  writeCommands(lockerId: number, count: number, signal?: boolean): Promise<number[]>;
  /** dseqs whose domain effect committed, in commit order. */
  effects(lockerId: number): Promise<number[]>;
  locker(lockerId: number): Promise<{ applied_cseq: number; acked_dseq: number; next_cseq: number; presence_conn: number; online: number }>;
  /** The locker's link history (reports: uptime), oldest first: 1 online, 0 offline. */
  linkHistory(lockerId: number): Promise<number[]>;
  close(): Promise<void>;
}

export async function openLinkWorld(engine: Engine, broker: BrokerKind): Promise<LinkWorld> {
  const tdb = await openTestDatabase(engine);
  const clock = {
    t: 1_700_000_000_000,
    now() {
      return this.t;
    },
  };
  const signals = new OutboxSignals();
  let embedded: EmbeddedBroker | undefined;
  let url: string;
  if (broker === 'embedded') {
    embedded = new EmbeddedBroker({ db: tdb, logger, host: '127.0.0.1', port: 0, cloud: CLOUD });
    await embedded.start();
    url = embedded.url;
  } else {
    url = process.env.MQTT_URL!;
  }
  const links: LockerLink[] = [];
  const children: ChildProcess[] = [];
  const extraDbs: CloudDatabase[] = [];
  const lockers: { id: number; password: string }[] = [];
  const base = randomInt(1_000, 1_000_000) * 1_000;
  let instance = 0;

  return {
    tdb,
    url,
    clock,
    signals,
    async startLink(opts = {}) {
      let db: CloudDatabase = tdb;
      if (opts.own) {
        db = await openDatabase({ ...tdb.location, poolSize: 4 });
        extraDbs.push(db);
      }
      const link = createLockerLink({
        db,
        signals,
        clock,
        logger,
        mqtt: { url, ...CLOUD, clientId: `cloud-${++instance}-${base}`, sharedGroup: opts.sharedGroup },
        applyEvent: recordEffect,
        options: { pollIntervalMs: 3600_000, trimIntervalMs: 3600_000, ...opts.options },
      });
      await link.start();
      links.push(link);
      return link;
    },
    async startLinkProcess(sharedGroup) {
      const script = fileURLToPath(new URL('./link-process.ts', import.meta.url));
      const { sqlitePath, databaseUrl, pgSchema } = tdb.location;
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        env: {
          ...process.env,
          LINK_SQLITE_PATH: sqlitePath ?? '',
          LINK_DATABASE_URL: databaseUrl ?? '',
          LINK_PG_SCHEMA: pgSchema ?? '',
          LINK_MQTT_URL: url,
          LINK_MQTT_USERNAME: CLOUD.username,
          LINK_MQTT_PASSWORD: CLOUD.password,
          LINK_MQTT_CLIENT_ID: `cloud-${++instance}-${base}`,
          LINK_SHARED_GROUP: sharedGroup ?? '',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('ready')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`link process exited with ${code}`)));
      });
    },
    async addLocker() {
      const locker = { id: base + lockers.length + 1, password: `pw-${randomInt(1e9)}` };
      await tdb.db
        .insertInto('lockers')
        .values({
          id: locker.id, name: `L${locker.id}`, timezone: 'Europe/Moscow', depth: 600, active: 1, broken: 0, scanner: 1,
          profile: PROFILE, mqtt_password_hash: hashMqttPassword(locker.password), updated_at: 0,
        })
        .execute();
      await tdb.db
        .insertInto('cells')
        .values([1, 2].map((id) => ({ locker_id: locker.id, id, width: 400, height: 100 * id, bus: 'bus0', board: 0, lock: id, segment: null, faulty: 0, dirty: 0, needs_inventory: 0, blocked: 0, updated_at: 0 })))
        .execute();
      lockers.push(locker);
      return locker;
    },
    connect(lockerId, conn) {
      const l = lockers.find((x) => x.id === lockerId)!;
      return ScriptedLocker.connect(url, String(lockerId), l.password, conn);
    },
    async writeCommands(lockerId, count, signal = true) {
      const commands = Array.from({ length: count }, (_, i): { lockerId: number; body: CommandBody } => ({
        lockerId,
        body: { type: 'courier.revoke', grantId: `g-${clock.t}-${i}` },
      }));
      const cseqs = await lockerTransaction(tdb, [lockerId], async (tx) => (await recordChange(tx, { at: clock.now(), commands })).cseqs);
      if (signal) signals.commandsRecorded([lockerId]);
      return cseqs;
    },
    async effects(lockerId) {
      const rows = await tdb.db.selectFrom('notifications').select('order_id').where('order_id', 'like', `${lockerId}:%`).orderBy('id').execute();
      return rows.map((r) => Number(r.order_id.split(':')[1]));
    },
    locker(lockerId) {
      return tdb.db
        .selectFrom('lockers')
        .select(['applied_cseq', 'acked_dseq', 'next_cseq', 'presence_conn', 'online'])
        .where('id', '=', lockerId)
        .executeTakeFirstOrThrow();
    },
    async linkHistory(lockerId) {
      const rows = await tdb.db.selectFrom('locker_link_history').select('online').where('locker_id', '=', lockerId).orderBy('id').execute();
      return rows.map((r) => r.online);
    },
    async close() {
      await Promise.all(links.map((l) => l.stop()));
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGTERM');
            }),
        ),
      );
      if (broker === 'external') {
        // Leave no retained presence behind on the shared broker.
        const c = await connectClient(url, { clientId: `cleanup-${base}`, username: 'cleanup', password: 'x' });
        for (const l of lockers) await c.publish(topics.presence(String(l.id)), '', { retain: true });
        await c.end();
      }
      await embedded?.stop();
      await Promise.all(extraDbs.map((d) => d.close()));
      await tdb.close();
    },
  };
}

