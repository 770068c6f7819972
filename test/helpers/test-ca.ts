/**
 * A certificate authority made at test time and a server certificate it signs for 127.0.0.1 and
 * localhost (the demo's own, demo/pki.ts), so the notification receiver speaks real HTTPS that
 * the cloud verifies against a CA file of its own (the marketplace's `caFile`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDemoPki, type DemoPki } from '../../demo/pki.js';

export interface TestPki extends DemoPki {
  /** Path of the CA certificate on disk (the marketplace's caFile). */
  caFile: string;
}

export async function makeTestPki(): Promise<TestPki> {
  // Certificates are checked against the real clock, whatever a test does with fake time.
  const pki = await makeDemoPki(Date.now(), 30, 'Notification Test CA');
  const caFile = join(mkdtempSync(join(tmpdir(), 'notify-ca-')), 'ca.pem');
  writeFileSync(caFile, pki.caPem);
  return { ...pki, caFile };
}
