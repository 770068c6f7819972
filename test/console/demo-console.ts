/** What the console's browser tests against `npm start`'s demo network share. */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The example fleet with one more operator, a viewer with `viewerKey`; its path under `dir`. */
export function fleetWithViewer(dir: string, viewerKey: string): string {
  const fleet = JSON.parse(readFileSync('deploy/fleet.example.json', 'utf8'));
  delete fleet.$schema;
  fleet.operators.push({ name: 'watch', role: 'viewer', apiKeySha256: [sha256(viewerKey)] });
  const path = join(dir, 'fleet.json');
  writeFileSync(path, JSON.stringify(fleet));
  return path;
}

/** Today in Moscow, where the demo's lockers are (a delivery date the locker accepts today). */
export function moscowToday(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}
