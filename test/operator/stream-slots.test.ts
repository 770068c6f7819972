/** GET /operator/stream: slots per operator under the process's cap, through real HTTP. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STREAMS, MAX_STREAMS_PER_OPERATOR } from '../../cloud/src/http/routes/operator/stream.js';
import { testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { startTestCloud, type TestCloud } from '../cloud/helpers/test-cloud.js';
import { eventually } from '../helpers/eventually.js';
import { testEngines } from '../helpers/cloud-db.js';

const sha = (key: string): string => createHash('sha256').update(key).digest('hex');
const VIEWER = 'test-viewer-key';
const OPS = 'test-ops-key';
const others = Array.from({ length: MAX_STREAMS / MAX_STREAMS_PER_OPERATOR }, (_, i) => `test-other-${i}-key`);

interface Opened {
  status: number;
  body: string;
  events: () => string;
  close: () => void;
}

/** Opens a stream; a 200 is left open (its text collected), a refusal is read whole. */
async function open(url: string, key: string): Promise<Opened> {
  const controller = new AbortController();
  const res = await fetch(`${url}/operator/stream`, { headers: { 'x-operator-api-key': key }, signal: controller.signal });
  if (res.status !== 200) return { status: res.status, body: await res.text(), events: () => '', close: () => undefined };
  let text = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      // aborted
    }
  })();
  return { status: 200, body: '', events: () => text, close: () => controller.abort() };
}

describe.each(testEngines())('operator stream slots on %s', (engine) => {
  let tc: TestCloud;
  const held: Opened[] = [];
  beforeAll(async () => {
    const fleet = testFleet();
    fleet.operators = [
      { name: 'ops', apiKeySha256: [sha(OPS)] },
      { name: 'watcher', role: 'viewer', apiKeySha256: [sha(VIEWER)] },
      ...others.map((key, i) => ({ name: `other-${i}`, role: 'viewer' as const, apiKeySha256: [sha(key)] })),
    ];
    tc = await startTestCloud(engine, { fleet });
  });
  afterAll(async () => {
    for (const s of held) s.close();
    await tc.stop();
  });

  it('one viewer holding its slots leaves the others theirs, refused in Russian beyond', async () => {
    for (let i = 0; i < MAX_STREAMS_PER_OPERATOR; i++) {
      const s = await open(tc.cloud.url, VIEWER);
      expect(s.status).toBe(200);
      held.push(s);
    }
    const refused = await open(tc.cloud.url, VIEWER);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ resultCode: 4, message: expect.stringMatching(/^Слишком много открытых потоков у оператора: не более 5/) as unknown });

    const ops = await open(tc.cloud.url, OPS);
    expect(ops.status).toBe(200);
    try {
      expect((await tc.call('PUT', '/operator/postamats/1/cells/3/flags', { operatorKey: OPS, body: { blocked: true } })).status).toBe(200);
      await eventually(() => ops.events().includes('event: locker'), "the operator's stream sees the change");
    } finally {
      ops.close();
    }

    // A closed stream gives its slot back.
    held.pop()!.close();
    await eventually(async () => {
      const again = await open(tc.cloud.url, VIEWER);
      if (again.status === 200) held.push(again);
      return again.status === 200;
    }, 'the slot freed');
  });

  it('the process cap still holds across operators', async () => {
    // The viewer holds its MAX_STREAMS_PER_OPERATOR already; the others fill the rest.
    for (const key of others) {
      for (let i = 0; i < MAX_STREAMS_PER_OPERATOR && held.length < MAX_STREAMS; i++) {
        const s = await open(tc.cloud.url, key);
        expect(s.status).toBe(200);
        held.push(s);
      }
    }
    const refused = await open(tc.cloud.url, OPS);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ resultCode: 4, message: `Слишком много открытых потоков: не более ${MAX_STREAMS}, повторите позже` });
  });
});
