/**
 * The cloud subscribes to its filters one after the other; a locker's hello can arrive once the
 * first is granted, before the last. Its answer goes out then, not with the resend 30 s later:
 * a cloud process restarting under a connected fleet left a locker a command short that long.
 */
import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudSubscriptions, topics } from '../../shared/src/topics.js';
import { CloudMqttClient } from '../../cloud/src/sync/cloud-mqtt-client.js';
import { connectClient } from '../broker/mqtt-client.js';

describe('the cloud answers while its later subscriptions are pending', () => {
  let aedes: Aedes;
  let server: Server;
  let url: string;
  /** Lets the presence subscription through; held until then. */
  let releasePresence: () => void = () => undefined;
  const presenceHeld = new Promise<void>((resolve) => (releasePresence = resolve));

  beforeAll(async () => {
    aedes = await Aedes.createBroker({
      authorizeSubscribe: (_client, sub, done) => {
        if (sub.topic === cloudSubscriptions.presence) void presenceHeld.then(() => done(null, sub));
        else done(null, sub);
      },
    });
    server = createServer(aedes.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    url = `mqtt://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    releasePresence();
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('publishes the answer to a message that came before the last SUBACK', async () => {
    const locker = await connectClient(url, { clientId: 'locker-7', username: 'locker-7', password: 'x' });
    await locker.subscribe(topics.down('7'));
    const answered: boolean[] = [];
    let ready = false;
    const cloud: CloudMqttClient = new CloudMqttClient({
      endpoint: { url, username: 'cloud-1', password: 'x', clientId: 'cloud-1-test' },
      logger: pino({ level: 'silent' }),
      connectTimeoutMs: 10_000,
      reconnectPeriodMs: 1_000,
      onMessage: (topic) => {
        if (topic === topics.up('7')) answered.push(cloud.publish(topics.down('7'), '{"answer":1}'));
      },
      onReady: () => (ready = true),
    });
    const upGranted = new Promise<void>((resolve) =>
      aedes.on('subscribe', (subs, client) => {
        if (client?.id === 'cloud-1-test' && subs.some((s) => s.topic === cloudSubscriptions.up)) resolve();
      }),
    );
    const started = cloud.start();
    try {
      // The up filter is granted and presence is held: a hello published now reaches the cloud.
      await upGranted;
      await locker.publish(topics.up('7'), '{"hello":1}');
      await locker.waitFor((m) => m.topic === topics.down('7'), 'the answer before the cloud is ready');
      expect(answered).toEqual([true]);
      expect(ready).toBe(false);
    } finally {
      releasePresence();
      await started;
      await cloud.stop();
      await locker.end();
    }
  });
});
