/**
 * The same access-control checks against any broker set up for the platform (the embedded aedes
 * broker, a private Mosquitto with deploy/mosquitto's config). Every check looks at what is
 * actually delivered: a forbidden publish must reach nobody, a forbidden subscription must
 * receive nothing, with an allowed message from the same sender as the barrier that proves the
 * forbidden one would have arrived by then.
 */
import { afterEach, expect, it } from 'vitest';
import { type Credentials, type TestClient, connectClient, connectRefused, publishForbidden } from './mqtt-client.js';

export interface AclTarget {
  url: string;
  /** Two cloud identities (Mosquitto gives each username its own session, so one per process). */
  clouds: [Credentials, Credentials];
  /** Two lockers of the fleet with their passwords. */
  lockerA: { id: string; password: string };
  lockerB: { id: string; password: string };
}

export function aclScenarios(target: () => AclTarget): void {
  const open: TestClient[] = [];
  let n = 0;
  const tag = (what: string) => `${what}-${++n}`;

  const connect = async (c: Credentials) => {
    const client = await connectClient(target().url, c);
    open.push(client);
    return client;
  };
  const locker = (l: { id: string; password: string }, clientId = l.id) =>
    connect({ clientId, username: l.id, password: l.password });
  const cloud = (slot: 0 | 1 = 0) => connect(target().clouds[slot]);

  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.end()));
  });

  it('refuses a wrong password, an unknown user and an anonymous client', async () => {
    const { url, lockerA, lockerB } = target();
    const refusedCodes = [4, 5];
    expect(refusedCodes).toContain(await connectRefused(url, { clientId: lockerA.id, username: lockerA.id, password: 'wrong' }));
    // Locker B's name with locker A's password.
    expect(refusedCodes).toContain(await connectRefused(url, { clientId: lockerB.id, username: lockerB.id, password: lockerA.password }));
    expect(refusedCodes).toContain(await connectRefused(url, { clientId: '999999', username: '999999', password: 'x' }));
    expect(refusedCodes).toContain(await connectRefused(url, { clientId: 'anon', username: '', password: '' }));
  });

  it('lets a locker talk on its own topics', async () => {
    const { lockerA } = target();
    const c = await cloud();
    expect(await c.subscribe('lockers/+/up')).toBe(1);
    expect(await c.subscribe('lockers/+/presence')).toBe(1);
    const a = await locker(lockerA);
    expect(await a.subscribe(`lockers/${lockerA.id}/down`)).toBe(1);

    const down = tag('down');
    await c.publish(`lockers/${lockerA.id}/down`, down);
    expect((await a.waitFor((m) => m.payload === down)).topic).toBe(`lockers/${lockerA.id}/down`);

    const up = tag('up');
    await a.publish(`lockers/${lockerA.id}/up`, up);
    expect((await c.waitFor((m) => m.payload === up)).topic).toBe(`lockers/${lockerA.id}/up`);

    const birth = tag('presence');
    await a.publish(`lockers/${lockerA.id}/presence`, birth, { retain: true });
    await c.waitFor((m) => m.payload === birth);
    // Retained presence reaches a later subscriber, the locker itself included.
    const later = await cloud(1);
    await later.subscribe(`lockers/${lockerA.id}/presence`);
    expect((await later.waitFor((m) => m.payload === birth)).retain).toBe(true);
    expect(await a.subscribe(`lockers/${lockerA.id}/presence`)).toBe(1);
    await a.waitFor((m) => m.payload === birth && m.retain);
  });

  it("keeps a locker from reading another locker's down topic", async () => {
    const { lockerA, lockerB } = target();
    const c = await cloud();
    const a = await locker(lockerA);
    const b = await locker(lockerB);
    await b.subscribe(`lockers/${lockerB.id}/down`);
    await a.subscribe(`lockers/${lockerA.id}/down`);
    const attempts = [`lockers/${lockerB.id}/down`, 'lockers/+/down', 'lockers/#', '#', `lockers/${lockerB.id}/#`];
    for (const filter of attempts) {
      // A refusal may come as SUBACK 128 or as a closed connection; what counts is delivery below.
      await a.subscribe(filter).catch(() => undefined);
    }
    const secret = tag('for-b');
    await c.publish(`lockers/${lockerB.id}/down`, secret);
    await b.waitFor((m) => m.payload === secret, 'locker B to get its command');
    const barrier = tag('barrier');
    await c.publish(`lockers/${lockerA.id}/down`, barrier);
    const watcher = a.closed ? await locker(lockerA) : a;
    if (watcher !== a) {
      await watcher.subscribe(`lockers/${lockerA.id}/down`);
      await c.publish(`lockers/${lockerA.id}/down`, barrier);
    }
    await watcher.waitFor((m) => m.payload === barrier, 'the barrier');
    expect([...a.received, ...watcher.received].some((m) => m.payload === secret)).toBe(false);
  });

  it("keeps a locker from writing another locker's up and presence topics", async () => {
    const { lockerA, lockerB } = target();
    const c = await cloud();
    await c.subscribe('lockers/+/up');
    await c.subscribe('lockers/+/presence');
    const forged = tag('forged');
    for (const topic of [`lockers/${lockerB.id}/up`, `lockers/${lockerB.id}/presence`, `lockers/${lockerB.id}/down`]) {
      const a = await locker(lockerA);
      await publishForbidden(a, topic, forged);
      const sender = a.closed ? await locker(lockerA) : a;
      const barrier = tag('barrier');
      await sender.publish(`lockers/${lockerA.id}/up`, barrier);
      await c.waitFor((m) => m.payload === barrier, 'the barrier');
    }
    const b = await locker(lockerB);
    await b.subscribe(`lockers/${lockerB.id}/down`);
    const late = await cloud(1);
    await late.subscribe(`lockers/${lockerB.id}/presence`);
    const barrier = tag('barrier');
    await c.publish(`lockers/${lockerB.id}/down`, barrier);
    await b.waitFor((m) => m.payload === barrier);
    const all = [...c.received, ...late.received, ...b.received];
    expect(all.some((m) => m.payload === forged)).toBe(false);
  });

  it("keeps a locker from taking over another locker's session", async () => {
    const { url, lockerA, lockerB } = target();
    const c = await cloud();
    const b = await locker(lockerB);
    await b.subscribe(`lockers/${lockerB.id}/down`);

    // Locker A's valid credentials with locker B's client id.
    let intruder: TestClient | undefined;
    try {
      intruder = await locker(lockerA, lockerB.id);
    } catch {
      // Refused outright (embedded broker). Mosquitto accepts it as client A (use_username_as_clientid).
    }
    if (intruder) await intruder.subscribe(`lockers/${lockerB.id}/down`).catch(() => undefined);
    // Locker B's client id and username with locker A's password.
    await expect(connectRefused(url, { clientId: lockerB.id, username: lockerB.id, password: lockerA.password })).resolves.toBeGreaterThan(0);

    const secret = tag('for-b');
    await c.publish(`lockers/${lockerB.id}/down`, secret);
    await b.waitFor((m) => m.payload === secret, 'locker B to keep its session');
    expect(b.closed).toBe(false);
    if (intruder && !intruder.closed) {
      const barrier = tag('barrier');
      await intruder.subscribe(`lockers/${lockerA.id}/down`);
      await c.publish(`lockers/${lockerA.id}/down`, barrier);
      await intruder.waitFor((m) => m.payload === barrier, 'the barrier');
      expect(intruder.received.some((m) => m.payload === secret)).toBe(false);
    }
  });

  it("drops a last will aimed at another locker's presence", async () => {
    const { lockerA, lockerB } = target();
    const c = await cloud();
    await c.subscribe('lockers/+/presence');
    const forged = tag('forged-will');
    const a = await connect({
      clientId: lockerA.id,
      username: lockerA.id,
      password: lockerA.password,
      will: { topic: `lockers/${lockerB.id}/presence`, payload: Buffer.from(forged), qos: 1, retain: true },
    });
    a.client.stream.destroy();
    await a.waitClosed();
    const own = tag('own-will');
    const a2 = await connect({
      clientId: lockerA.id,
      username: lockerA.id,
      password: lockerA.password,
      will: { topic: `lockers/${lockerA.id}/presence`, payload: Buffer.from(own), qos: 1, retain: true },
    });
    a2.client.stream.destroy();
    await c.waitFor((m) => m.payload === own, 'the allowed will');
    const late = await cloud(1);
    await late.subscribe(`lockers/${lockerB.id}/presence`);
    await late.subscribe(`lockers/${lockerA.id}/presence`);
    await late.waitFor((m) => m.payload === own);
    expect([...c.received, ...late.received].some((m) => m.payload === forged)).toBe(false);
  });

  it('gives the cloud the locker topics it needs and nothing more', async () => {
    const { lockerA } = target();
    const a = await locker(lockerA);
    await a.subscribe(`lockers/${lockerA.id}/down`);
    // Mosquitto grants any subscription and filters at delivery; aedes refuses it. Either way
    // nothing outside the cloud's topics may arrive.
    const watcher = await cloud(1);
    for (const filter of ['lockers/+/down', '#', '$SYS/#', `lockers/${lockerA.id}/#`]) await watcher.subscribe(filter).catch(() => undefined);
    const sender = await cloud();
    const command = tag('command');
    await sender.publish(`lockers/${lockerA.id}/down`, command);
    await a.waitFor((m) => m.payload === command, 'the locker to get its command');
    await watcher.subscribe('lockers/+/up');
    const mark = tag('barrier');
    await a.publish(`lockers/${lockerA.id}/up`, mark);
    await watcher.waitFor((m) => m.payload === mark, 'the barrier');
    expect(watcher.received.filter((m) => !/^lockers\/[^/]+\/(up|presence)$/.test(m.topic))).toEqual([]);
    await Promise.all([watcher.end(), sender.end()]);

    const observer = await cloud();
    await observer.subscribe('lockers/+/up');
    const forged = tag('cloud-forged');
    const writer = await cloud(1);
    await publishForbidden(writer, `lockers/${lockerA.id}/up`, forged);
    const barrier = tag('barrier');
    await a.publish(`lockers/${lockerA.id}/up`, barrier);
    await observer.waitFor((m) => m.payload === barrier);
    expect(observer.received.some((m) => m.payload === forged)).toBe(false);
  });
}
