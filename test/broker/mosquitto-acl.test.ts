import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { type AclTarget, aclScenarios } from './acl-scenarios.js';
import { connectClient } from './mqtt-client.js';
import { type PrivateMosquitto, startPrivateMosquitto } from '../helpers/private-mosquitto.js';

const lockerA = { id: '101', password: 'pw-101-secret' };
const lockerB = { id: '102', password: 'pw-102-secret' };
const clouds = { 'cloud-1': 'cloud-1-secret', 'cloud-2': 'cloud-2-secret' };

describe.runIf(requires('mosquitto'))("Mosquitto with deploy/mosquitto's config", () => {
  let broker: PrivateMosquitto;
  let target: AclTarget;

  beforeAll(async () => {
    broker = await startPrivateMosquitto({ [lockerA.id]: lockerA.password, [lockerB.id]: lockerB.password, ...clouds });
    target = {
      url: broker.url,
      clouds: [
        { clientId: 'any-1', username: 'cloud-1', password: clouds['cloud-1'] },
        { clientId: 'any-2', username: 'cloud-2', password: clouds['cloud-2'] },
      ],
      lockerA,
      lockerB,
    };
  });
  afterAll(async () => broker?.stop());

  aclScenarios(() => target);

  it('lets cloud processes share the up stream with a shared subscription', async () => {
    const c1 = await connectClient(broker.url, target.clouds[0]);
    const c2 = await connectClient(broker.url, target.clouds[1]);
    expect(await c1.subscribe('$share/cloud/lockers/+/up')).toBe(1);
    expect(await c2.subscribe('$share/cloud/lockers/+/up')).toBe(1);
    const a = await connectClient(broker.url, { clientId: lockerA.id, username: lockerA.id, password: lockerA.password });
    for (let i = 0; i < 10; i++) await a.publish(`lockers/${lockerA.id}/up`, `shared-${i}`);
    const all = () => [...c1.received, ...c2.received].filter((m) => m.payload.startsWith('shared-'));
    await c1.waitFor(() => all().length === 10, 'all ten messages').catch(async () => c2.waitFor(() => all().length === 10));
    // Each message reached exactly one of the two processes.
    expect(all().map((m) => m.payload).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `shared-${i}`).sort());
    await Promise.all([a.end(), c1.end(), c2.end()]);
  });
});
