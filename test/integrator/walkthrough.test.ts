/**
 * The integrator's walk-through (`npm run integrator:walkthrough`) as CI runs it: the script as a
 * child process, as a new integrator would start it. It starts its own cloud (`npm run cloud`)
 * and receiver; it must exit 0 having printed every step.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, it } from 'vitest';

const STEPS = [
  /^ok 1\. start the notification receiver \(HTTPS, receiver kit\): https:\/\/127\.0\.0\.1:\d+\//,
  /^ok 2\. start the cloud: npm run cloud with the derived example fleet: http:\/\/127\.0\.0\.1:\d+ /,
  /^ok 3\. sandbox locker 901 running/,
  /^ok 4\. create order WT-\w+-1 \(smartorder\/create\): cell \d+ reserved/,
  /^ok 5\. courier-load WT-\w+-1 -> notification 3, pick-up code, storage deadline: postamat 901, cell \d+; storage until /,
  /^ok 6\. extend the storage of WT-\w+-1 -> new deadline/,
  /^ok 7\. customer-pickup WT-\w+-1 with the received code -> notification 2/,
  /^ok 8\. create order WT-\w+-2; a courier finds it \(order\/detail\): postamat 901, cell \d+/,
  /^ok 9\. courier-load WT-\w+-2 -> notification 3/,
  /^ok 10\. storage-expiry WT-\w+-2 -> notification 7 \(Awaiting return\)/,
  /^ok 11\. courier-return -> notification 4 \(Courier picked up\) for WT-\w+-2/,
  /^ok 12\. every notification signed, typed and received once: 10 notifications, 10 distinct ids/,
  /^ok 13\. sandbox reset/,
  /^walkthrough passed: 13 steps in \d+\.\d s$/,
];

it('walks a new integrator through the sandbox and exits 0', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/integrator-walkthrough.ts'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code, out).toBe(0);
  const lines = out.trim().split('\n');
  expect(lines, out).toHaveLength(STEPS.length);
  STEPS.forEach((pattern, i) => expect(lines[i], out).toMatch(pattern));
}, 600_000);
